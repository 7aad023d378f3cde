//! What a user of the generated types relies on beyond the wire: names, boxing and
//! validation reaching into unions.

use covenant_corpus::github::models as github;
use covenant_corpus::regressions::{prelude_names, quoted_names, recursive, union_default};
use covenant_runtime::Validate;
use serde_json::json;

#[test]
fn validation_reaches_models_inside_unions() {
    let issue = json!({
        "id": 1, "node_id": "I_1", "number": 1, "title": "Crash", "user": null,
        "labels": ["bug", {"id": 2, "name": "ui", "color": "not-hex", "description": null, "default": false}],
        "state": "open", "locked": false, "comments": 0,
        "created_at": "2024-05-01T12:00:00Z", "updated_at": "2024-05-01T12:00:00Z", "closed_at": null
    });
    let issue: github::Issue = serde_json::from_value(issue).unwrap();
    let issues = issue.validate().unwrap_err();
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0].json_path(), "$.labels[1].color");
}

#[test]
fn maps_are_sorted_and_validation_reaches_their_values() {
    let wire = json!({"name": "root", "named": {"b": {"name": "ok"}, "a": {"name": ""}}});
    let node: recursive::models::Node = serde_json::from_value(wire).unwrap();
    let keys: Vec<&String> = node.named.as_ref().unwrap().keys().collect();
    assert_eq!(keys, ["a", "b"]);
    let issues = node.validate().unwrap_err();
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0].json_path(), "$.named.a.name");
    let languages: covenant_corpus::github::operations::ListRepositoryLanguagesResponse =
        covenant_corpus::github::operations::ListRepositoryLanguagesResponse::from_status_bytes(
            200,
            br#"{"Rust": 1200, "Shell": 30}"#,
        )
        .unwrap();
    let covenant_corpus::github::operations::ListRepositoryLanguagesResponse::Ok(languages) =
        languages
    else {
        panic!("a 200 is Ok");
    };
    assert_eq!(languages["Rust"], 1200);
}

#[test]
fn a_model_whose_fields_may_all_be_left_out_defaults_to_what_an_empty_object_reads_as() {
    use union_default::models::{Item, ItemWeight, StringOrInt};
    let empty: Item = serde_json::from_value(json!({})).unwrap();
    assert_eq!(Item::default(), empty);
    assert_eq!(Item::default().label, StringOrInt::String("a".into()));
    // `string | int` is written twice, on the model and on a parameter: one type.
    let search = union_default::operations::SearchInput::default();
    assert_eq!(search.label, Item::default().label);
    let heavier = Item {
        weight: ItemWeight::String("heavy".into()),
        ..Default::default()
    };
    assert_eq!(
        serde_json::to_value(&heavier).unwrap(),
        json!({"label": "a", "weight": "heavy"})
    );
}

#[test]
fn punctuation_names_stay_distinct_and_keep_their_wire_names() {
    let wire =
        json!({"+1": 3, "-1": 1, "plus_1": 9, "type": "t", "total-count": 4, "total_count": 5});
    let reactions: quoted_names::models::Reactions = serde_json::from_value(wire.clone()).unwrap();
    assert_eq!(
        (reactions.plus_1_2, reactions.minus_1, reactions.plus_1),
        (3, 1, Some(9))
    );
    assert_eq!(
        (reactions.total_count_2, reactions.total_count),
        (4, Some(5))
    );
    assert_eq!(serde_json::to_value(&reactions).unwrap(), wire);
    let vote: quoted_names::models::Vote = serde_json::from_value(json!("-1")).unwrap();
    assert_eq!(vote, quoted_names::models::Vote::Minus1);
}

#[test]
fn prelude_named_models_stay_usable_beside_the_prelude() {
    let result: prelude_names::models::Result_ =
        serde_json::from_value(json!({"ok": true})).unwrap();
    let ok: Result<bool, ()> = Ok(result.ok);
    assert_eq!(ok, Ok(true));
}

#[test]
fn self_containing_models_nest_through_boxes() {
    let wire =
        json!({"text": "a", "replies": [], "parent": {"text": "b", "replies": [], "parent": null}});
    let comment: recursive::models::Comment = serde_json::from_value(wire.clone()).unwrap();
    let parent = comment.parent.as_deref().expect("a parent");
    assert_eq!(parent.text, "b");
    assert_eq!(serde_json::to_value(&comment).unwrap(), wire);
}

#[test]
fn a_constant_tag_tells_union_members_apart_and_errors_are_the_members() {
    use covenant_corpus::payments::models::{BankAccount, Card, CustomerSourcesItem};
    let card = json!({"id": "card_1", "object": "card", "brand": "visa", "last4": "4242", "exp_month": 1, "exp_year": 2030});
    let bank = json!({"id": "ba_1", "object": "bank_account", "bank_name": null, "last4": "6789", "country": "US"});
    let sources: Vec<CustomerSourcesItem> =
        serde_json::from_value(json!([card.clone(), bank.clone()])).unwrap();
    assert!(
        matches!(&sources[0], CustomerSourcesItem::Card(Card { brand, .. }) if brand == "visa")
    );
    assert!(
        matches!(&sources[1], CustomerSourcesItem::BankAccount(BankAccount { country, .. }) if country == "US")
    );
    assert_eq!(serde_json::to_value(&sources).unwrap(), json!([card, bank]));

    // A bank account missing a field is reported as a bank account, not as "no variant".
    let mut broken = bank.clone();
    broken.as_object_mut().unwrap().remove("country");
    let error = serde_json::from_value::<CustomerSourcesItem>(broken).unwrap_err();
    assert!(
        error.to_string().contains("missing field `country`"),
        "{error}"
    );
    let error =
        serde_json::from_value::<CustomerSourcesItem>(json!({"object": "source"})).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("expected one of card, bank_account"),
        "{error}"
    );
    // The tag itself is checked: a card's `object` holds `card` only.
    let card: Card = serde_json::from_value(json!({"id": "c", "object": "bank_account", "brand": "v", "last4": "1", "exp_month": 1, "exp_year": 1})).unwrap();
    assert_eq!(card.validate().unwrap_err()[0].json_path(), "$.object");
}

#[test]
fn a_body_sends_exactly_one_field_of_its_group() {
    use covenant_corpus::payments::models::CreateRefundRequest;
    use covenant_corpus::payments::operations::CreateRefundInput;
    let input = |charge: Option<&str>, intent: Option<&str>| CreateRefundInput {
        body: CreateRefundRequest {
            charge: charge.map(str::to_string),
            payment_intent: intent.map(str::to_string),
            amount: None,
        },
    };
    assert!(input(Some("ch_1"), None).validate().is_ok());
    assert!(input(None, Some("pi_1")).validate().is_ok());
    for (both_or_none, message) in [
        (
            input(Some("ch_1"), Some("pi_1")),
            "Exactly one of charge, payment_intent may be sent, not charge and payment_intent",
        ),
        (
            input(None, None),
            "Exactly one of charge, payment_intent is required",
        ),
    ] {
        let issues = both_or_none.validate().unwrap_err();
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert_eq!(issues[0].json_path(), "$.body");
        assert_eq!(issues[0].msg, message);
    }
}

#[test]
fn a_builder_names_each_field_once_and_every_required_one_left_unset() {
    let label = github::Label::builder()
        .id(7)
        .name("bug")
        .color("d73a4a")
        .description(None::<String>)
        .default(true)
        .build()
        .unwrap();
    assert_eq!(
        serde_json::to_value(&label).unwrap(),
        json!({"id": 7, "name": "bug", "color": "d73a4a", "description": null, "default": true})
    );
    let error = github::Label::builder().name("bug").build().unwrap_err();
    assert_eq!(error.missing, ["id", "color", "description", "default"]);
    assert_eq!(
        error.to_string(),
        "Label is missing id, color, description, default"
    );
    // Optional fields are left absent, or take the spec's default, unless set.
    let user = github::SimpleUser::builder()
        .login("octocat")
        .id(1)
        .node_id("U_1")
        .avatar_url("https://example.com/a.png")
        .html_url("https://example.com/octocat")
        .r#type("User")
        .site_admin(false)
        .build()
        .unwrap();
    assert!(user.email.is_absent());
    // A constant (`object: "refund"`) needs no setting.
    let refund = covenant_corpus::payments::models::Refund::builder()
        .id("re_1")
        .amount(5)
        .currency(covenant_corpus::payments::models::Currency::Usd)
        .payment_intent(None::<String>)
        .status(None::<String>)
        .created(0)
        .build()
        .unwrap();
    assert_eq!(refund.object, "refund");
}
