//! Headless Chromium from Debian's `chromium` and `chromium-driver` packages, driven over
//! WebDriver, for the workspace's page tests: a fresh profile per run, keys sent to
//! whatever has the focus (as a keyboard user types), a numbered screenshot per step in a
//! folder the test names, and an accessibility check by axe-core.

mod accessibility;

pub use accessibility::AXE_CORE;
pub use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Where Debian installs them; `COVENANT_CHROMIUM` and `COVENANT_CHROMEDRIVER` name others.
const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Flags for a headless run on a machine without network or GPU, as root in a container:
/// no sandbox, and none of Chromium's own background traffic.
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=900,1100",
];

/// Longest wait for a page to show what a step expects.
const PATIENCE: Duration = Duration::from_secs(10);

pub struct Browser {
    client: Client,
    driver: Child,
    _profile: tempfile::TempDir,
    shots: PathBuf,
    step: usize,
}

fn program(var: &str, default: &str) -> Option<PathBuf> {
    let path = std::env::var_os(var).map_or_else(|| PathBuf::from(default), PathBuf::from);
    path.exists().then_some(path)
}

impl Browser {
    /// A browser saving its screenshots in `shots` (emptied first), or `None` outside CI when
    /// Chromium is not installed (CI installs it, so there its absence fails the test).
    pub async fn start(shots: &Path) -> Option<Browser> {
        let (Some(chromium), Some(chromedriver)) = (
            program("COVENANT_CHROMIUM", CHROMIUM),
            program("COVENANT_CHROMEDRIVER", CHROMEDRIVER),
        ) else {
            assert!(
                std::env::var_os("CI").is_none(),
                "{CHROMIUM} and {CHROMEDRIVER} must be installed in CI (Debian's chromium and \
                 chromium-driver)"
            );
            eprintln!("skipped: install Debian's chromium and chromium-driver to run it");
            return None;
        };
        let port = free_port();
        // Its own process group, so the Chromium it starts goes with it whatever happens.
        let driver = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("start chromedriver");
        let profile = tempfile::tempdir().expect("a fresh profile folder");
        let mut args: Vec<String> = FLAGS.iter().map(|f| f.to_string()).collect();
        args.push(format!("--user-data-dir={}", profile.path().display()));
        let capabilities = serde_json::json!({
            "browserName": "chrome",
            "goog:chromeOptions": { "binary": chromium, "args": args },
        });
        let serde_json::Value::Object(capabilities) = capabilities else {
            unreachable!("an object")
        };
        let address = format!("http://127.0.0.1:{port}");
        let mut driver = DriverGuard(Some(driver));
        let client = connect(&address, capabilities).await;
        let _ = std::fs::remove_dir_all(shots);
        std::fs::create_dir_all(shots).expect("the screenshot folder");
        Some(Browser {
            client,
            driver: driver.0.take().expect("the driver"),
            _profile: profile,
            shots: shots.to_path_buf(),
            step: 0,
        })
    }

    pub async fn goto(&self, url: &str) {
        self.client.goto(url).await.expect("navigate");
    }

    /// Saves the page as it looks now, numbered in order: `03-password-refused.png`.
    pub async fn shot(&mut self, name: &str) {
        self.step += 1;
        let png = self.client.screenshot().await.expect("a screenshot");
        let path = self.shots.join(format!("{:02}-{name}.png", self.step));
        std::fs::write(&path, png).expect("write the screenshot");
    }

    /// Clicks the element `css` selects, as a pointer user would.
    pub async fn click(&self, css: &str) {
        let element = self.client.find(Locator::Css(css)).await;
        let element = element.unwrap_or_else(|e| panic!("{css} on the page: {e}"));
        element.click().await.expect("click");
    }

    /// The page's address now.
    pub async fn url(&self) -> url::Url {
        self.client.current_url().await.expect("the address")
    }

    /// Types into whatever has the focus.
    pub async fn type_text(&self, text: &str) {
        let focused = self
            .client
            .active_element()
            .await
            .expect("a focused element");
        focused.send_keys(text).await.expect("type");
    }

    pub async fn press(&self, key: Key) {
        self.type_text(&char::from(key).to_string()).await;
    }

    /// Tabs forward `times` and answers what then has the focus.
    pub async fn tab(&self, times: usize) -> String {
        for _ in 0..times {
            self.press(Key::Tab).await;
        }
        self.focused().await
    }

    /// The focused element as `tag:name`: an input or button by its id, name and value, a
    /// link by its provider name or text.
    pub async fn focused(&self) -> String {
        self.script(
            "const e = document.activeElement; const tag = e.tagName.toLowerCase(); \
             if (tag === 'a') return 'a:' + (e.querySelector('.name') || e).textContent.trim(); \
             if (tag === 'button') return 'button:' + e.textContent.trim(); \
             return tag + ':' + (e.id || e.name);",
        )
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
    }

    pub async fn script(&self, script: &str) -> serde_json::Value {
        self.client
            .execute(script, Vec::new())
            .await
            .expect("run a script")
    }

    pub async fn text(&self, css: &str) -> String {
        let element = self.client.find(Locator::Css(css)).await;
        element
            .unwrap_or_else(|e| panic!("{css} on the page: {e}"))
            .text()
            .await
            .expect("its text")
    }

    pub async fn texts(&self, css: &str) -> Vec<String> {
        let mut texts = Vec::new();
        for element in self.client.find_all(Locator::Css(css)).await.expect("find") {
            texts.push(element.text().await.expect("its text"));
        }
        texts
    }

    pub async fn attr(&self, css: &str, name: &str) -> Option<String> {
        let element = self.client.find(Locator::Css(css)).await.expect(css);
        element.attr(name).await.expect("an attribute")
    }

    /// Waits until the page shows an element `css` selects.
    pub async fn wait_for(&self, css: &str) {
        let found = self
            .client
            .wait()
            .at_most(PATIENCE)
            .for_element(Locator::Css(css))
            .await;
        found.unwrap_or_else(|e| panic!("waited for {css}: {e}"));
    }

    /// Waits until the page's heading is `text`, and answers the page's address.
    pub async fn wait_for_heading(&self, text: &str) -> url::Url {
        let xpath = format!("//h1[normalize-space()='{text}']");
        let found = self
            .client
            .wait()
            .at_most(PATIENCE)
            .for_element(Locator::XPath(&xpath))
            .await;
        if let Err(e) = found {
            let heading = self.text("h1").await;
            panic!("waited for the heading {text:?}, the page shows {heading:?}: {e}");
        }
        self.url().await
    }

    pub async fn stop(self) {
        let _ = self.client.clone().close().await;
    }
}

/// Ends chromedriver and every Chromium process it started.
fn end(driver: &mut Child) {
    let group = rustix::process::Pid::from_child(driver);
    let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    let _ = driver.wait();
}

/// Ends chromedriver if the session never started.
struct DriverGuard(Option<Child>);

impl Drop for DriverGuard {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            end(&mut child);
        }
    }
}

/// A test that fails midway leaves no browser behind either.
impl Drop for Browser {
    fn drop(&mut self) {
        end(&mut self.driver);
    }
}

/// A session, once chromedriver listens.
async fn connect(
    address: &str,
    capabilities: serde_json::Map<String, serde_json::Value>,
) -> Client {
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let started = std::time::Instant::now();
    loop {
        let attempt = ClientBuilder::new(connector.clone())
            .capabilities(capabilities.clone())
            .connect(address)
            .await;
        match attempt {
            Ok(client) => return client,
            Err(e) if started.elapsed() > PATIENCE => panic!("a Chromium session: {e}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}
