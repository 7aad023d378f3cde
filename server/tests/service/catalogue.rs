//! The catalogue: providers, markers with filters and paging, lab tests, order sets, and the
//! patient service centers near an order.

use crate::harness::Harness;
use crate::on_both_backends;
use crate::patients::{address, patient};
use crate::users::create;
use covenant_runtime::{Tristate, Uuid};
use health_api::models::*;
use health_api::operations::*;

on_both_backends!(
    the_provider_catalogue_has_39_providers_and_16_oauth_details,
    markers_filter_and_page_with_correct_totals,
    order_sets_list_each_marker_once,
    service_centers_are_the_order_labs_nearest_first_within_the_radius,
    orders_are_filtered_by_their_results_interpretation,
);

const QUEST_CMP: &str = "d5e343ad-6a15-4eff-b358-c6e6cacc7db8";
const QUEST_LIPID: &str = "be415ea9-7ad5-4187-a0f9-4ced330b1897";
const QUEST: i64 = 4;

fn uuid(text: &str) -> Uuid {
    Uuid(text.parse().unwrap())
}

async fn the_provider_catalogue_has_39_providers_and_16_oauth_details(h: Harness) {
    let team = h.team();
    let ListProvidersResponse::Ok(all) = team
        .list_providers(ListProvidersInput { source_type: None })
        .await
        .unwrap()
    else {
        panic!("providers");
    };
    assert_eq!(all.len(), 39);
    assert!(
        all.iter()
            .all(|p| !p.name.is_empty() && !p.description.is_empty() && p.logo.is_some())
    );
    let ListProvidersResponse::Ok(ble) = team
        .list_providers(ListProvidersInput {
            source_type: Some("ble".into()),
        })
        .await
        .unwrap()
    else {
        panic!("ble providers");
    };
    assert!(!ble.is_empty() && ble.len() < 39);
    assert!(
        ble.iter().all(|p| p.slug.ends_with("_ble")),
        "{:?}",
        ble.iter().map(|p| &p.slug).collect::<Vec<_>>()
    );
    let mut ids = Vec::new();
    for slug in [
        "oura",
        "fitbit",
        "garmin",
        "strava",
        "wahoo",
        "ihealth",
        "withings",
        "google_fit",
        "dexcom_v3",
        "polar",
        "cronometer",
        "omron",
        "whoop_v2",
        "my_fitness_pal_v2",
        "ultrahuman",
        "runkeeper",
    ] {
        let provider: BulkProvider = serde_json::from_value(serde_json::json!(slug)).unwrap();
        let input = GetOauthProviderInput {
            oauth_provider: provider,
        };
        let GetOauthProviderResponse::Ok(detail) = team.get_oauth_provider(input).await.unwrap()
        else {
            panic!("detail of {slug}");
        };
        ids.push(detail.id);
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 16);
}

fn markers(name: &str) -> ListMarkersInput {
    ListMarkersInput {
        lab_id: None,
        lab_slug: None,
        name: name.into(),
        a_la_carte_enabled: None,
        lab_account_id: None,
        page: 1,
        size: 50,
    }
}

async fn list(h: &Harness, input: ListMarkersInput) -> MarkerList {
    match h.team().list_markers(input).await.unwrap() {
        ListMarkersResponse::Ok(list) => list,
        other => panic!("markers: {other:?}"),
    }
}

async fn markers_filter_and_page_with_correct_totals(h: Harness) {
    let everything = list(&h, markers("")).await;
    let total = everything.total.unwrap();
    assert!(total >= 200, "{total}");
    assert_eq!(everything.pages, Some((total + 49) / 50));
    assert_eq!(everything.markers.len(), 50);
    // The last page holds the rest.
    let last = list(
        &h,
        ListMarkersInput {
            page: everything.pages.unwrap(),
            ..markers("")
        },
    )
    .await;
    assert_eq!(
        last.markers.len() as i64,
        total - 50 * (everything.pages.unwrap() - 1)
    );

    // By name (any case) or by LOINC code.
    let glucose = list(&h, markers("GLUCOSE")).await;
    assert!(glucose.total.unwrap() > 0);
    assert!(glucose.markers.iter().all(|m| {
        m.name.to_lowercase().contains("glucose")
            || m.expected_results.iter().any(|r| {
                r.name.to_lowercase().contains("glucose") || r.loinc.code.contains("glucose")
            })
            || m.provider_id.to_lowercase().contains("glucose")
    }));
    let by_code = list(&h, markers("2345-7")).await;
    assert!(
        by_code
            .markers
            .iter()
            .all(|m| m.expected_results.iter().any(|r| r.loinc.code == "2345-7"))
    );
    assert!(by_code.total.unwrap() > 0);

    // lab_slug wins over lab_id.
    let quest = list(
        &h,
        ListMarkersInput {
            lab_id: Some(vec![5]),
            lab_slug: Some("quest".into()),
            ..markers("")
        },
    )
    .await;
    assert!(quest.markers.iter().all(|m| m.lab_id == QUEST));
    let two_labs = list(
        &h,
        ListMarkersInput {
            lab_id: Some(vec![4, 5]),
            size: 100,
            ..markers("")
        },
    )
    .await;
    assert!(
        two_labs
            .markers
            .iter()
            .all(|m| m.lab_id == 4 || m.lab_id == 5)
    );
    assert!(two_labs.total.unwrap() > quest.total.unwrap());
    let not_a_la_carte = list(
        &h,
        ListMarkersInput {
            a_la_carte_enabled: Some(false),
            size: 100,
            ..markers("")
        },
    )
    .await;
    let a_la_carte = list(
        &h,
        ListMarkersInput {
            a_la_carte_enabled: Some(true),
            size: 1,
            ..markers("")
        },
    )
    .await;
    assert_eq!(
        not_a_la_carte.total.unwrap() + a_la_carte.total.unwrap(),
        total
    );

    // The markers of one lab test, in its order.
    let ListLabTestMarkersResponse::Ok(lipid) = h
        .team()
        .list_lab_test_markers(ListLabTestMarkersInput {
            lab_test_id: uuid(QUEST_LIPID),
            lab_account_id: None,
            page: 1,
            size: 50,
        })
        .await
        .unwrap()
    else {
        panic!("lab test markers");
    };
    assert_eq!(lipid.total, Some(1));
    assert_eq!(lipid.markers[0].provider_id, "7600");
    assert!(
        lipid.markers[0]
            .expected_results
            .iter()
            .any(|r| r.loinc.code == "13457-7"),
        "LDL in the lipid panel"
    );
}

async fn order_sets_list_each_marker_once(h: Harness) {
    let body = ListOrderSetMarkersRequest {
        lab_test_ids: vec![QUEST_CMP.into(), QUEST_LIPID.into(), QUEST_CMP.into()],
        add_on: AddOn {
            provider_ids: vec!["7600".into(), "6399".into()],
        },
    };
    let ListOrderSetMarkersResponse::Ok(set) = h
        .team()
        .list_order_set_markers(ListOrderSetMarkersInput {
            page: 1,
            size: 50,
            body,
        })
        .await
        .unwrap()
    else {
        panic!("order set");
    };
    let codes: Vec<&str> = set.markers.iter().map(|m| m.provider_id.as_str()).collect();
    assert_eq!(codes, ["10231", "7600", "6399"]);
    assert_eq!(set.total, Some(3));
    let body = ListOrderSetMarkersRequest {
        lab_test_ids: vec!["nope".into()],
        add_on: AddOn {
            provider_ids: vec![],
        },
    };
    assert!(matches!(
        h.team()
            .list_order_set_markers(ListOrderSetMarkersInput {
                page: 1,
                size: 50,
                body
            })
            .await
            .unwrap(),
        ListOrderSetMarkersResponse::UnprocessableEntity(_)
    ));
}

async fn service_centers_are_the_order_labs_nearest_first_within_the_radius(h: Harness) {
    let user_id = create(&h, "drawn").await;
    let team = h.team();
    let order = || CreateLabOrderInput {
        body: CreateLabOrderRequest {
            user_id,
            lab_test_id: uuid(QUEST_CMP),
            interpretation: Tristate::Absent,
        },
    };
    assert!(matches!(
        team.create_lab_order(order()).await.unwrap(),
        CreateLabOrderResponse::BadRequest(_)
    ));
    let info = UpdatePatientInfoInput {
        user_id: user_id.0.to_string(),
        body: patient(address("zip_code", "94105")),
    };
    team.update_patient_info(info).await.unwrap();
    let CreateLabOrderResponse::Created(order) = team.create_lab_order(order()).await.unwrap()
    else {
        panic!("order");
    };
    assert_eq!(order.lab_id, QUEST);
    let centers = |radius, capabilities| {
        let team = h.team();
        async move {
            match team
                .list_psc_info(ListPscInfoInput {
                    order_id: order.id,
                    radius,
                    capabilities,
                })
                .await
                .unwrap()
            {
                ListPscInfoResponse::Ok(listing) => listing,
                other => panic!("psc: {other:?}"),
            }
        }
    };
    let near = centers(10, None).await;
    let far = centers(100, None).await;
    assert_eq!(near.lab_id, QUEST);
    assert!(!near.patient_service_centers.is_empty());
    assert!(far.patient_service_centers.len() > near.patient_service_centers.len());
    let distances: Vec<i64> = far
        .patient_service_centers
        .iter()
        .map(|c| c.distance.parse().unwrap())
        .collect();
    assert!(
        distances.windows(2).all(|w| w[0] <= w[1]),
        "nearest first: {distances:?}"
    );
    assert!(distances.iter().all(|d| *d <= 100));
    assert!(
        far.patient_service_centers
            .iter()
            .all(|c| c.metadata.state == "CA")
    );
    let stat = centers(100, Some(vec![Capability::Stat])).await;
    assert!(!stat.patient_service_centers.is_empty());
    assert!(
        stat.patient_service_centers
            .iter()
            .all(|c| c.capabilities.contains(&Capability::Stat))
    );
    assert!(stat.patient_service_centers.len() < far.patient_service_centers.len());
    // The order is listed with no interpretation until a result says one.
    let listed = orders(&h, None).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, order.id);
    assert_eq!(listed[0].interpretation, None);
}

async fn orders_are_filtered_by_their_results_interpretation(h: Harness) {
    let user_id = create(&h, "interpreted").await;
    let team = h.team();
    let info = UpdatePatientInfoInput {
        user_id: user_id.0.to_string(),
        body: patient(address("zip_code", "94105")),
    };
    team.update_patient_info(info).await.unwrap();
    let mut made = Vec::new();
    for interpretation in [
        Tristate::Value(Interpretation::Normal),
        Tristate::Value(Interpretation::Critical),
        Tristate::Null,
    ] {
        let input = CreateLabOrderInput {
            body: CreateLabOrderRequest {
                user_id,
                lab_test_id: uuid(QUEST_CMP),
                interpretation,
            },
        };
        let CreateLabOrderResponse::Created(order) = team.create_lab_order(input).await.unwrap()
        else {
            panic!("order");
        };
        made.push(order);
    }
    assert_eq!(made[0].interpretation, Some(Interpretation::Normal));
    let mut all = orders(&h, None).await;
    all.sort_by_key(|o| o.id.0);
    let mut expected = made.clone();
    expected.sort_by_key(|o| o.id.0);
    assert_eq!(all, expected);
    let normal = orders(&h, Some(Interpretation::Normal)).await;
    assert_eq!(normal, vec![made[0].clone()]);
    let critical = orders(&h, Some(Interpretation::Critical)).await;
    assert_eq!(critical, vec![made[1].clone()]);
    assert!(orders(&h, Some(Interpretation::Abnormal)).await.is_empty());
}

/// The team's orders, of one interpretation when one is given.
async fn orders(h: &Harness, interpretation: Option<Interpretation>) -> Vec<LabOrder> {
    match h
        .team()
        .list_orders(ListOrdersInput { interpretation })
        .await
        .unwrap()
    {
        ListOrdersResponse::Ok(listed) => listed.orders,
        other => panic!("orders: {other:?}"),
    }
}
