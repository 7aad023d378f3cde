//! The bounds a served API holds against slow and many clients, as `serve` and `mock` take
//! them from the command line.

use clap::Args;
use covenant_runtime::server::RequestLimits;
use covenant_runtime::server::transport::{self, Transport};
use std::time::Duration;

#[derive(Args, Clone, Debug)]
pub struct ServeLimits {
    /// Seconds a request's headers may take to arrive, from its first byte.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = seconds)]
    header_timeout: f64,
    /// Seconds a connection may sit with no request in progress and no bytes moving.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, value_parser = seconds)]
    idle_timeout: f64,
    /// Seconds a request may take, its body included (503 beyond).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, value_parser = seconds)]
    request_timeout: f64,
    /// Connections served at once [default: 1024, fewer when the open-file limit is lower].
    /// Beyond it a new connection takes the place of the longest idle one, or is answered 503.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: Option<u32>,
}

impl ServeLimits {
    /// The transport's settings. Raises the open-file limit first, so the default cap is
    /// as high as the system allows.
    pub fn transport(&self) -> Transport {
        transport::raise_open_file_limit();
        let mut transport = Transport {
            header_read_timeout: Duration::from_secs_f64(self.header_timeout),
            idle_timeout: Duration::from_secs_f64(self.idle_timeout),
            ..Transport::default()
        };
        if let Some(cap) = self.max_connections {
            transport.max_connections = cap as usize;
        }
        transport
    }

    /// The router's caps on each request.
    pub fn request(&self) -> RequestLimits {
        RequestLimits {
            request_timeout: Duration::from_secs_f64(self.request_timeout),
            ..RequestLimits::default()
        }
    }
}

/// A positive number of seconds, at most a day.
fn seconds(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if value.is_finite() && value > 0.0 && value <= 86_400.0 {
        Ok(value)
    } else {
        Err(format!(
            "`{text}`: give a number of seconds above 0, at most 86400"
        ))
    }
}
