"""The published Python client of the service (`vital` on PyPI) against a running server,
step by step: each step's outcome is printed, and the exit status is 1 when any failed.
Usage: published_client_probe.py CREDENTIALS_JSON"""
import json, sys, uuid, warnings
warnings.filterwarnings("ignore")
import vital
from vital.types.address import Address

creds = json.load(open(sys.argv[1]))
key = creds["team_api_key"]
v = vital.Vital(api_key=key, base_url=creds["base_url"], headers={"x-service-api-key": key})
results = []
def step(name, fn):
    try:
        out = fn()
        results.append((name, "ok", ""))
        return out
    except Exception as e:  # a failed step is reported, the probe goes on
        results.append((name, "FAIL", f"{type(e).__name__}: {str(e)[:300]}"))
        return None

cid = f"vital-probe-{uuid.uuid4().hex[:8]}"
created = step("user.create", lambda: v.user.create(client_user_id=cid, fallback_time_zone="Europe/London"))
uid = created.user_id if created else None
step("user.get", lambda: v.user.get(uid))
step("user.get_by_client_user_id", lambda: v.user.get_by_client_user_id(cid))
def conflict():
    try:
        v.user.create(client_user_id=cid)
    except vital.BadRequestError as e:
        if e.status_code == 400 and e.body["detail"]["user_id"] == uid:
            return
        raise
    raise Exception("a repeated client_user_id created a second user")
step("user.create again: 400 naming the existing user", conflict)
step("user.patch", lambda: v.user.patch(uid, fallback_time_zone="America/New_York", ingestion_start="2025-01-01"))
u = step("user.get after patch", lambda: v.user.get(uid))
step("patched time zone read back", lambda: None if u.fallback_time_zone.id == "America/New_York" else (_ for _ in ()).throw(Exception(str(u.fallback_time_zone))))
addr = Address(first_line="1 Market St", second_line="", city="San Francisco", state="CA", zip="94103", country="US", access_notes="")
info = step("user.upsert_user_info", lambda: v.user.upsert_user_info(uid, first_name="Ada", last_name="Lovelace", email="ada@example.com", phone_number="+14155550100", gender="female", dob="1990-12-10", address=addr))
step("user.get_latest_user_info", lambda: v.user.get_latest_user_info(uid))
from vital.types.vital_core_schemas_db_schemas_lab_test_insurance_person_details import VitalCoreSchemasDbSchemasLabTestInsurancePersonDetails as Person
person = Person(first_name="Ada", last_name="Lovelace", gender="female", address=addr, dob="1990-12-10", email="ada@example.com", phone_number="+14155550100")
ins = step("user.create_insurance (payor by name)", lambda: v.user.create_insurance(uid, payor_code="AETNA", member_id="M-1", relationship="Self", insured=person))
step("payor code read back as written", lambda: None if ins.payor_code == "AETNA" else (_ for _ in ()).throw(Exception(ins.payor_code)))
latest = step("user.get_latest_insurance", lambda: v.user.get_latest_insurance(uid))
step("latest payor code as written", lambda: None if latest.payor_code == "AETNA" else (_ for _ in ()).throw(Exception(latest.payor_code)))
tok = step("link.token", lambda: v.link.token(user_id=uid, provider="oura"))
step("link.token for all providers", lambda: v.link.token(user_id=uid))
step("providers.get_all", lambda: v.providers.get_all())
step("lab_tests.get_markers", lambda: v.lab_tests.get_markers(size=5))
step("user.refresh", lambda: v.user.refresh(uid, timeout=5))
step("link.list_bulk_ops", lambda: v.link.list_bulk_ops())
step("user.delete", lambda: v.user.delete(uid))
step("user.undo_delete", lambda: v.user.undo_delete(user_id=uid))
step("user.get after undo", lambda: v.user.get(uid))
for name, status, why in results:
    print(f"{status:4}  {name}  {why}")
failed = sum(1 for r in results if r[1] != "ok")
print(f"published client: {len(results) - failed} steps passed, {failed} failed")
sys.exit(1 if failed else 0)
