//! The `events` module: one `Payload` variant per event (its placeholders and the envelope
//! fields it types), the event type each is sent as, and reading a delivery back, so a
//! service emits deliveries and a receiver parses them with the same types.

use super::RustBackend;
use super::names::{field_ident, type_ident, variant_idents};
use crate::ir::shapes::Shape;
use crate::ir::*;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// How a placeholder's text becomes its enum.
#[derive(Clone, Copy)]
enum Reading {
    /// `FromStr`: only the enum's values.
    Closed,
    /// `From<&str>`: any text, unknown ones kept; known values are tried first.
    Open,
    /// An enum of ints: the text's number.
    Int,
}

/// One event as its variant holds it.
struct Variant {
    ident: Ident,
    name: String,
    pattern: String,
    /// Placeholders: field, enum type, how its text is read.
    placeholders: Vec<(Ident, Ident, Reading)>,
    /// Envelope fields the event types: field, wire name, Rust type.
    fields: Vec<(Ident, String, TokenStream)>,
    docs: Vec<String>,
    deprecated: bool,
}

impl RustBackend<'_> {
    /// The module, or nothing when the spec has no events.
    pub fn events(&mut self) -> Option<TokenStream> {
        let envelope = self.spec.envelope?;
        if self.spec.events.is_empty() {
            return None;
        }
        let variants = self.event_variants();
        let rt = &self.rt;
        let crate_path = &self.crate_path;
        let envelope_ty = self.struct_name(envelope, Shape::Response);
        let definitions = variants.iter().map(variant_definition);
        let names = variants.iter().map(|v| {
            let (ident, name) = (&v.ident, &v.name);
            quote!(Payload::#ident { .. } => #name)
        });
        let types = variants.iter().map(|v| event_type_arm(rt, v));
        let fields = variants.iter().map(fields_arm);
        // An envelope whose events type none of its fields writes nothing into `out`.
        let out = if variants.iter().any(|v| !v.fields.is_empty()) {
            quote!(let mut out)
        } else {
            quote!(let out)
        };
        let parses = variants.iter().map(|v| parse_arm(rt, v));
        let carrier = self.delivery_fns(rt, &envelope_ty);
        Some(quote! {
            #[allow(unused_imports)]
            use #crate_path as rt;
            #[allow(unused_imports)]
            use super::models::*;

            /// Every event of the spec: what its type names, and the envelope fields it types.
            #[derive(Clone, Debug, PartialEq)]
            pub enum Payload {
                #(#definitions)*
            }

            #[allow(deprecated)]
            impl Payload {
                /// The event's name in the spec.
                pub fn name(&self) -> &'static str {
                    match self { #(#names,)* }
                }

                /// The event type a delivery of this payload carries.
                pub fn event_type(&self) -> String {
                    match self { #(#types,)* }
                }

                /// The envelope fields this event types, as JSON for a delivery.
                pub fn fields(&self) -> serde_json::Map<String, serde_json::Value> {
                    #out = serde_json::Map::new();
                    match self { #(#fields)* }
                    out
                }

                /// The payload of a delivery of type `event_type` whose envelope is
                /// `envelope`; the envelope's other fields are not looked at. An event whose
                /// placeholders all hold known values is preferred over one that keeps an
                /// unknown value of an open enum.
                pub fn parse(event_type: &str, envelope: &serde_json::Map<String, serde_json::Value>) -> Result<Self, #rt::events::EventError> {
                    match Self::parse_as(event_type, envelope, true)? {
                        Some(payload) => Ok(payload),
                        None => Self::parse_as(event_type, envelope, false)?
                            .ok_or_else(|| #rt::events::EventError::UnknownType(event_type.to_string())),
                    }
                }

                #[allow(unused_variables)]
                fn parse_as(event_type: &str, envelope: &serde_json::Map<String, serde_json::Value>, known_only: bool) -> Result<Option<Self>, #rt::events::EventError> {
                    #(#parses)*
                    Ok(None)
                }
            }

            #carrier
        })
    }

    fn event_variants(&mut self) -> Vec<Variant> {
        let spec = self.spec;
        let names: Vec<&str> = spec.events.iter().map(|e| e.name.as_str()).collect();
        let idents = variant_idents(&names, "");
        spec.events
            .iter()
            .zip(idents)
            .map(|(event, ident)| {
                let fields: Vec<(Ident, String, TokenStream)> = event
                    .fields
                    .iter()
                    .map(|f| {
                        let hint = super::union_name(&event.name, &f.name);
                        let inner = self.value_type(&f.ty, Shape::Response, &hint);
                        let (ty, _) = self.presence_wrap(inner, f, &event.name);
                        // Event fields are named as the envelope's: wire names.
                        let name = if f.ident.is_empty() {
                            &f.name
                        } else {
                            &f.ident
                        };
                        (field_ident(name), f.name.clone(), ty)
                    })
                    .collect();
                let placeholders = event
                    .placeholders
                    .iter()
                    .map(|(name, id)| {
                        let mut field = field_ident(name);
                        if fields.iter().any(|(f, _, _)| *f == field) {
                            field = format_ident!("{name}_in_type");
                        }
                        let e = spec.enum_(*id);
                        let reading = match (e.repr, e.open) {
                            (EnumRepr::Int, _) => Reading::Int,
                            (EnumRepr::String, true) => Reading::Open,
                            (EnumRepr::String, false) => Reading::Closed,
                        };
                        (field, type_ident(&e.name), reading)
                    })
                    .collect();
                let doc = format!(
                    "`{}`{}",
                    event.pattern,
                    event
                        .doc
                        .as_deref()
                        .map(|d| format!(": {d}"))
                        .unwrap_or_default()
                );
                Variant {
                    ident,
                    name: event.name.clone(),
                    pattern: event.pattern.clone(),
                    placeholders,
                    fields,
                    docs: super::doc_lines(&doc),
                    deprecated: event.deprecated.is_some(),
                }
            })
            .collect()
    }

    /// `delivery` and `read_delivery`, for where the spec says the event type travels.
    fn delivery_fns(&self, rt: &TokenStream, envelope: &Ident) -> TokenStream {
        let write = |insert_type: TokenStream| {
            quote! {
                let mut value = serde_json::to_value(envelope).unwrap_or_default();
                if let serde_json::Value::Object(fields) = &mut value {
                    fields.extend(payload.fields());
                    #insert_type
                }
                value
            }
        };
        let read_envelope = quote! {
            let value: serde_json::Value = serde_json::from_slice(body)
                .map_err(|e| #rt::events::EventError::Envelope(e.to_string()))?;
            let envelope: #envelope = serde_json::from_value(value.clone())
                .map_err(|e| #rt::events::EventError::Envelope(e.to_string()))?;
            let fields = value.as_object().cloned().unwrap_or_default();
        };
        let verify = self.verify_fn(rt, envelope);
        let read = match &self.spec.event_type {
            Some(EventTypeCarrier::Header(header)) => {
                let write = write(TokenStream::new());
                quote! {
                /// The header a delivery names its event type in.
                pub const EVENT_TYPE_HEADER: &str = #header;

                /// A delivery's body: `envelope` with the fields `payload` types written in.
                /// Send `payload.event_type()` in [`EVENT_TYPE_HEADER`].
                pub fn delivery(envelope: &#envelope, payload: &Payload) -> serde_json::Value {
                    #write
                }

                /// Reads a delivery: the event type from its [`EVENT_TYPE_HEADER`], the
                /// envelope and payload from its body.
                pub fn read_delivery(event_type: &str, body: &[u8]) -> Result<(#envelope, Payload), #rt::events::EventError> {
                    #read_envelope
                    Ok((envelope, Payload::parse(event_type, &fields)?))
                }
                }
            }
            Some(EventTypeCarrier::Field(field)) => {
                let write = write(quote! {
                    fields.insert(#field.to_string(), serde_json::Value::String(payload.event_type()));
                });
                quote! {
                /// A delivery's body: `envelope` with the event type and the fields
                /// `payload` types written in.
                pub fn delivery(envelope: &#envelope, payload: &Payload) -> serde_json::Value {
                    #write
                }

                /// Reads a delivery's body: its envelope, and its payload by the event type
                /// the envelope names.
                pub fn read_delivery(body: &[u8]) -> Result<(#envelope, Payload), #rt::events::EventError> {
                    #read_envelope
                    let event_type = fields
                        .get(#field)
                        .and_then(serde_json::Value::as_str)
                        .ok_or(#rt::events::EventError::NoEventType)?;
                    let payload = Payload::parse(event_type, &fields)?;
                    Ok((envelope, payload))
                }
                }
            }
            None => TokenStream::new(),
        };
        quote!(#read #verify)
    }

    /// `verify_delivery`, when the spec says how deliveries are signed: the signature and
    /// the timestamp checked before the body is read.
    fn verify_fn(&self, rt: &TokenStream, envelope: &Ident) -> TokenStream {
        let (Some(scheme), Some(carrier)) = (self.spec.event_signing, &self.spec.event_type) else {
            return TokenStream::new();
        };
        let variant = format_ident!("{}", format!("{scheme:?}"));
        let title = crate::ir::signing_title(scheme).replace('`', "");
        let read = match carrier {
            EventTypeCarrier::Header(_) => quote! {
                let event_type = headers
                    .get(EVENT_TYPE_HEADER)
                    .and_then(|v| v.to_str().ok())
                    .ok_or(#rt::events::EventError::NoEventType)?;
                Ok(read_delivery(event_type, body)?)
            },
            EventTypeCarrier::Field(_) => quote!(Ok(read_delivery(body)?)),
        };
        let signing_doc = format!(
            " How deliveries are signed: {title}. `SIGNING.secret(text)` reads a receiver's secret."
        );
        let verify_doc = format!(
            " Checks a delivery's {title} signature by `secret` and, where the scheme signs one, \
             its timestamp (within five minutes of this machine's clock), then reads it. A \
             delivery is sent at least once: drop a repeat by its id."
        );
        quote! {
            #[doc = #signing_doc]
            pub const SIGNING: #rt::webhooks::SigningScheme = #rt::webhooks::SigningScheme::#variant;

            #[doc = #verify_doc]
            pub fn verify_delivery(secret: &#rt::webhooks::WebhookSecret, headers: &#rt::http::HeaderMap, body: &[u8]) -> Result<(#envelope, Payload), #rt::webhooks::DeliveryError> {
                SIGNING.verify_now(secret, headers, body)?;
                #read
            }
        }
    }
}

fn variant_definition(v: &Variant) -> TokenStream {
    let ident = &v.ident;
    let docs = &v.docs;
    let deprecated = v.deprecated.then(|| quote!(#[deprecated]));
    let placeholders = v.placeholders.iter().map(|(f, ty, _)| quote!(#f: #ty,));
    let fields = v.fields.iter().map(|(f, _, ty)| quote!(#f: #ty,));
    quote! {
        #(#[doc = #docs])*
        #deprecated
        #ident { #(#placeholders)* #(#fields)* },
    }
}

fn event_type_arm(rt: &TokenStream, v: &Variant) -> TokenStream {
    let (ident, pattern) = (&v.ident, &v.pattern);
    if v.placeholders.is_empty() {
        return quote!(Payload::#ident { .. } => #pattern.to_string());
    }
    let names: Vec<&Ident> = v.placeholders.iter().map(|(f, _, _)| f).collect();
    quote! {
        Payload::#ident { #(#names,)* .. } => #rt::events::fill_event_type(#pattern, &[#(&#names.to_string()),*])
    }
}

fn fields_arm(v: &Variant) -> TokenStream {
    let ident = &v.ident;
    let names: Vec<&Ident> = v.fields.iter().map(|(f, _, _)| f).collect();
    let wires = v.fields.iter().map(|(_, w, _)| w);
    quote! {
        Payload::#ident { #(#names,)* .. } => {
            #(out.insert(#wires.to_string(), serde_json::to_value(#names).unwrap_or_default());)*
        }
    }
}

/// Tries the variant's pattern; when the event type fits and every placeholder reads as its
/// enum, reads the typed fields.
fn parse_arm(rt: &TokenStream, v: &Variant) -> TokenStream {
    let (ident, pattern, name) = (&v.ident, &v.pattern, &v.name);
    let names: Vec<&Ident> = v.placeholders.iter().map(|(f, _, _)| f).collect();
    let reads = v.placeholders.iter().map(|(f, ty, reading)| match reading {
        Reading::Int => {
            quote!(let Some(#f) = #f.parse::<i64>().ok().and_then(|n| #ty::try_from_i64(n).ok()) else { break 'event; };)
        }
        Reading::Closed => quote!(let Ok(#f) = #f.parse::<#ty>() else { break 'event; };),
        Reading::Open => quote! {
            let #f = #ty::from(*#f);
            if known_only && matches!(#f, #ty::UnknownValue(_)) { break 'event; }
        },
    });
    let fields = v
        .fields
        .iter()
        .map(|(f, wire, _)| quote!(#f: #rt::events::event_field(envelope, #wire, #name)?,));
    quote! {
        'event: {
            let Some(texts) = #rt::events::match_event_type(#pattern, event_type) else { break 'event; };
            let [#(#names),*] = texts.as_slice() else { break 'event; };
            #(#reads)*
            return Ok(Some(Payload::#ident { #(#names,)* #(#fields)* }));
        }
    }
}
