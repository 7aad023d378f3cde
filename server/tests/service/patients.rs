//! Patient info and insurance: both address spellings, the payor table, latest reads.

use crate::harness::Harness;
use crate::on_both_backends;
use crate::users::create;
use covenant_runtime::{Date, Tristate};
use health_api::models::*;
use health_api::operations::*;

on_both_backends!(
    patient_info_echoes_both_address_spellings,
    insurance_takes_its_company_from_the_payor_table,
);

pub fn address(zip_field: &str, zip: &str) -> UserAddress {
    let mut a = UserAddress {
        first_line: Some("500 Market St".into()),
        second_line: Tristate::Null,
        zip_code: None,
        zip: None,
        country: None,
        state: Some("CA".into()),
        city: Some("San Francisco".into()),
    };
    if zip_field == "zip" {
        a.zip = Some(zip.into());
        a.country = Some("US".into());
    } else {
        a.zip_code = Some(zip.into());
    }
    a
}

pub fn patient(address: UserAddress) -> PatientInfoRequest {
    PatientInfoRequest {
        first_name: "Ada".into(),
        last_name: "Lovelace".into(),
        email: "ada@example.com".into(),
        phone_number: "+14155550100".into(),
        gender: "female".into(),
        dob: Date("1985-12-10".parse().unwrap()),
        address,
        medical_proxy: None,
        race: Tristate::Absent,
        ethnicity: Tristate::Value(Ethnicity::NonHispanic),
        sexual_orientation: Tristate::Null,
        gender_identity: Tristate::Absent,
    }
}

async fn patient_info_echoes_both_address_spellings(h: Harness) {
    let user_id = create(&h, "patient").await;
    let team = h.team();
    assert!(matches!(
        team.get_latest_patient_info(GetLatestPatientInfoInput { user_id })
            .await
            .unwrap(),
        GetLatestPatientInfoResponse::NotFound(_)
    ));
    for (field, zip) in [("zip_code", "94105"), ("zip", "94107")] {
        let input = UpdatePatientInfoInput {
            user_id: user_id.0.to_string(),
            body: patient(address(field, zip)),
        };
        let UpdatePatientInfoResponse::Ok(echo) = team.update_patient_info(input).await.unwrap()
        else {
            panic!("update patient info");
        };
        assert_eq!(echo.address.zip_code.as_deref(), Some(zip));
        assert_eq!(echo.address.zip.as_deref(), Some(zip));
        assert_eq!(echo.ethnicity, Tristate::Value(Ethnicity::NonHispanic));
        let GetLatestPatientInfoResponse::Ok(latest) = team
            .get_latest_patient_info(GetLatestPatientInfoInput { user_id })
            .await
            .unwrap()
        else {
            panic!("latest patient info");
        };
        assert_eq!(latest, echo, "the latest read is the stored record");
    }
}

pub fn insurance(payor_code: &str, is_primary: bool, member_id: &str) -> InsuranceRecordRequest {
    InsuranceRecordRequest {
        payor_code: payor_code.into(),
        member_id: member_id.into(),
        group_id: Tristate::Null,
        relationship: Relationship::Self_,
        insured: PersonDetailsRequest {
            first_name: "Ada".into(),
            last_name: "Lovelace".into(),
            gender: InsuredGender::Female,
            address: address("zip", "94105"),
            dob: Date("1985-12-10".parse().unwrap()),
            email: "ada@example.com".into(),
            phone_number: "+14155550100".into(),
        },
        guarantor: None,
        is_primary,
    }
}

async fn insurance_takes_its_company_from_the_payor_table(h: Harness) {
    let user_id = create(&h, "insured").await;
    let team = h.team();
    let add = |body| {
        team.add_insurance(AddInsuranceInput {
            user_id: user_id.0.to_string(),
            body,
        })
    };
    let AddInsuranceResponse::Ok(record) = add(insurance("60054", true, "M-1")).await.unwrap()
    else {
        panic!("add insurance");
    };
    assert!(
        record.company.name.contains("Aetna"),
        "{}",
        record.company.name
    );
    assert_eq!(record.insured.address.zip, "94105");
    add(insurance("60054", true, "M-2")).await.unwrap();
    add(insurance("87726", false, "S-1")).await.unwrap();
    let latest = |is_primary| {
        team.get_latest_insurance(GetLatestInsuranceInput {
            user_id,
            is_primary,
        })
    };
    let GetLatestInsuranceResponse::Ok(primary) = latest(true).await.unwrap() else {
        panic!("primary")
    };
    assert_eq!(primary.member_id, "M-2");
    let GetLatestInsuranceResponse::Ok(secondary) = latest(false).await.unwrap() else {
        panic!("secondary")
    };
    assert_eq!(secondary.member_id, "S-1");
    let AddInsuranceResponse::UnprocessableEntity(e) =
        add(insurance("NOPE", true, "X")).await.unwrap()
    else {
        panic!("an unknown payor is a 422");
    };
    assert!(e.detail[0].msg.contains("NOPE"));
}
