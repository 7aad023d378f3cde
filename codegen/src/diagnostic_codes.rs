//! Stable diagnostic codes. `E00xx` are lexical and syntax errors, `E01xx` semantic errors,
//! `W0xxx` warnings. The language reference (spec/README.md) lists them with examples.

pub const UNEXPECTED_CHARACTER: &str = "E0001";
pub const UNTERMINATED_STRING: &str = "E0002";
pub const SYNTAX: &str = "E0003";

pub const DUPLICATE: &str = "E0101";
pub const UNKNOWN_TYPE: &str = "E0102";
pub const PATH_PARAM_NOT_IN_PATH: &str = "E0103";
pub const PATH_PLACEHOLDER_UNDECLARED: &str = "E0104";
pub const DEFAULT_VIOLATES_CONSTRAINT: &str = "E0105";
pub const DEFAULT_WRONG_TYPE: &str = "E0106";
pub const SUBSET_VALUE_NOT_IN_PARENT: &str = "E0107";
pub const CATALOGUE_SIZE_MISMATCH: &str = "E0108";
pub const NO_AUTH: &str = "E0109";
pub const DEPRECATION_TARGET_MISSING: &str = "E0110";
pub const UNKNOWN_AUTH_SCHEME: &str = "E0111";
pub const UNKNOWN_ANNOTATION: &str = "E0112";
pub const BAD_ANNOTATION: &str = "E0113";
pub const CONSTRAINT_TYPE_MISMATCH: &str = "E0114";
pub const EMPTY_RANGE: &str = "E0115";
pub const BAD_PATTERN: &str = "E0116";
pub const PATH_OUTSIDE_VERSIONS: &str = "E0117";
pub const DUPLICATE_ROUTE: &str = "E0118";
pub const EVENT_PLACEHOLDER_MISMATCH: &str = "E0119";
pub const UNKNOWN_API: &str = "E0120";
pub const BODY_NOT_ALLOWED: &str = "E0121";
pub const DUPLICATE_MEMBER: &str = "E0122";
pub const UNKNOWN_REFERENCE: &str = "E0123";
pub const BAD_STATUS: &str = "E0124";
pub const UNKNOWN_STATE: &str = "E0125";
pub const NO_SUCCESS_RESPONSE: &str = "E0126";
pub const BAD_SETTING: &str = "E0127";
pub const BAD_METHOD: &str = "E0128";
pub const OPTIONAL_PATH_PARAM: &str = "E0129";
pub const NO_ENVELOPE: &str = "E0130";
pub const BAD_DATE: &str = "E0131";
pub const EMPTY_NOT_SHOWN: &str = "E0132";
pub const DEFAULT_ON_REQUIRED: &str = "E0133";
pub const INFINITE_MODEL: &str = "E0134";
pub const OVERLAPPING_EVENTS: &str = "E0135";
pub const PARTIAL_SEGMENT: &str = "E0136";
pub const UNSUPPORTED_PARAM_TYPE: &str = "E0137";
pub const UNKNOWN_SCOPE: &str = "E0138";
pub const BAD_RESPONSE_HEADER: &str = "E0139";
pub const BAD_BODY_MEDIA: &str = "E0140";
pub const TYPE_HOLDS_ITSELF: &str = "E0141";
pub const BAD_ENCODING: &str = "E0142";
pub const PATH_NOT_A_ROUTE: &str = "E0143";
pub const BAD_AUTH_TOGETHER: &str = "E0144";

pub const UNUSED: &str = "W0001";
pub const REJECTIONS_UNWRITTEN: &str = "W0002";
