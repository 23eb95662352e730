//! The charts: written as charts/*.svg and inlined in report.html, with
//! titles, axis labels with units, a legend, Okabe-Ito colours, the min-max
//! band; and report.html fetches nothing from outside.
mod common;
mod report_support;

use assert_cmd::prelude::*;
use common::runner;
use report_support::*;

#[test]
fn charts_are_readable_svg_and_inlined_in_a_self_contained_html() {
    let (_tmp, run) = copy_fixture("base");
    runner().arg("report").arg(&run).assert().success();
    let svg = |name: &str| {
        std::fs::read_to_string(run.join("charts").join(format!("{name}.svg"))).unwrap()
    };
    // plotters writes each text on its own line inside <text ...>.
    let has_text = |svg: &str, text: &str| svg.contains(&format!(">\n{text}\n</text>"));

    let throughput = svg("throughput");
    for text in [
        "Throughput vs concurrency (line: median of repeats, band: min-max)",
        "payload 7",
        "payload 8192",
        "concurrency (connections, log scale)",
        "throughput (req/s)",
        "go-stdlib",
        "jdk-jvm",
        "jdk-leyden-aot",
        "20,000",
    ] {
        assert!(has_text(&throughput, text), "throughput.svg lacks {text}");
    }
    // One min-max band per runtime and payload, in the runtime's Okabe-Ito colour.
    assert_eq!(throughput.matches("<polygon").count(), 6);
    for colour in ["#0072B2", "#D55E00", "#009E73"] {
        assert!(
            throughput.contains(&format!("fill=\"{colour}\"")),
            "no {colour}"
        );
    }

    // Latency at equal load: p99 against concurrency, one line per runtime.
    let p99 = svg("p99-vs-concurrency");
    for text in [
        "p99 latency vs concurrency (median of repeats; log scales)",
        "p99 latency (ms, log scale)",
        "concurrency (connections, log scale)",
        "payload 8192",
        "10.0 ms",
    ] {
        assert!(has_text(&p99, text), "p99-vs-concurrency.svg lacks {text}");
    }
    for colour in ["#0072B2", "#D55E00", "#009E73"] {
        let line = format!("stroke=\"{colour}\" stroke-width=\"2\"");
        assert_eq!(p99.matches(&line).count(), 2, "a {colour} line per payload");
    }
    assert!(
        !run.join("charts/p99-at-peak.svg").exists(),
        "the p99-at-peak bars are gone"
    );
    let resources = svg("resources");
    assert!(has_text(&resources, "RSS (MiB)") && has_text(&resources, "service CPU (cores)"));
    assert!(has_text(&svg("startup"), "Spawn to first healthy answer"));

    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert_eq!(html.matches("<svg ").count(), 4, "the four charts inline");
    for external in ["<link", "<script", "src=", "@import", "url("] {
        assert!(
            !html.contains(external),
            "report.html references something external: {external}"
        );
    }
    assert_eq!(
        html.matches("http").count(),
        html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count(),
        "the only URLs are SVG namespaces"
    );
}
