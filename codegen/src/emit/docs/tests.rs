//! Tests of the site as a whole, on small specs written for each property.
