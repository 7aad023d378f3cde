//! The endpoints tagged `link_widget`: the link widget's own calls, made by the page a link token opened.

use super::Service;
use crate::api::link;
use health_api::operations::*;
use health_api::server::{Answer, Context, LinkWidgetEndpoints};

impl LinkWidgetEndpoints for Service {
    async fn open_link_widget(
        &self,
        _ctx: Context<(), Self>,
        input: OpenLinkWidgetInput,
    ) -> Answer<OpenLinkWidgetResponse> {
        Ok(link::widget::open(&self.0, input).await?)
    }

    async fn open_link_provider(
        &self,
        _ctx: Context<(), Self>,
        input: OpenLinkProviderInput,
    ) -> Answer<OpenLinkProviderResponse> {
        Ok(link::widget::provider(&self.0, input).await?)
    }

    async fn sign_in_link_provider(
        &self,
        _ctx: Context<(), Self>,
        input: SignInLinkProviderInput,
    ) -> Answer<SignInLinkProviderResponse> {
        Ok(link::widget::submit(&self.0, input).await?)
    }

    async fn close_link_widget(
        &self,
        _ctx: Context<(), Self>,
        input: CloseLinkWidgetInput,
    ) -> Answer<CloseLinkWidgetResponse> {
        Ok(link::widget::close(&self.0, input).await?)
    }
}
