//! history.md, history.html (self-contained: inline CSS and SVG) and the
//! JSON. The two documents are minijinja templates rendered with the
//! report's environment (strict undefined, its filters, HTML auto-escape by
//! name), so they read like report.md.j2 and report.html.j2.
use minijinja::value::Serde;
use minijinja::{Value, context};
use serde::Serialize;

use super::History;
use super::chart;
use super::series::Metric;
use crate::report::analysis::format;
use crate::report::error::ReportError;
use crate::report::render::templating::{self, TemplateSource};

const MD: (&str, &str) = (
    "history.md.j2",
    include_str!("../../../templates/history.md.j2"),
);
const HTML: (&str, &str) = (
    "history.html.j2",
    include_str!("../../../templates/history.html.j2"),
);

pub fn markdown(history: &History) -> Result<String, ReportError> {
    render(MD, context! { history => Value::from(Serde(history)) })
}

pub fn html(history: &History) -> Result<String, ReportError> {
    let configs = configurations(history)?;
    render(
        HTML,
        context! {
            history => Value::from(Serde(history)),
            configs => Value::from(Serde(&configs)),
            runner_version => env!("CARGO_PKG_VERSION"),
        },
    )
}

pub fn json(history: &History) -> String {
    serde_json::to_string_pretty(&crate::results::versioned(history))
        .expect("plain data serializes")
        + "\n"
}

/// One configuration's charts, for the HTML page.
#[derive(Serialize)]
struct ConfigCharts {
    config_id: String,
    runtime: String,
    axes: String,
    /// Indices into `history.series` with their SVG, throughput first.
    panels: Vec<Panel>,
}

#[derive(Serialize)]
struct Panel {
    series: usize,
    svg: String,
}

fn configurations(history: &History) -> Result<Vec<ConfigCharts>, ReportError> {
    let mut configs: Vec<ConfigCharts> = Vec::new();
    let axis = chart::TimeAxis::of(&history.runs);
    for (i, s) in history.series.iter().enumerate() {
        let panel = Panel {
            series: i,
            svg: chart::trend(s, &axis)?,
        };
        match configs.last_mut() {
            Some(c) if c.config_id == s.config_id => c.panels.push(panel),
            _ => configs.push(ConfigCharts {
                config_id: s.config_id.clone(),
                runtime: s.runtime.clone(),
                axes: s.axes.clone(),
                panels: vec![panel],
            }),
        }
    }
    Ok(configs)
}

fn render(template: (&str, &str), ctx: Value) -> Result<String, ReportError> {
    let (name, source) = template;
    let source = TemplateSource {
        name: name.to_string(),
        source: source.to_string(),
        output: templating::output_name(name),
    };
    let mut env = templating::environment(std::slice::from_ref(&source))?;
    // `fmt_value(metric, ratio)`: a candidate/control ratio is a plain factor.
    env.add_filter(
        "fmt_value",
        |v: f64, metric: String, ratio: Option<bool>| match (metric.as_str(), ratio) {
            (_, Some(true)) => format!("{v:.3}x"),
            ("throughput", _) => format::rps(v),
            _ => format::ms(v),
        },
    );
    env.add_filter("metric_label", |metric: String| match metric.as_str() {
        "throughput" => Metric::Throughput.label(),
        _ => Metric::P99.label(),
    });
    templating::render(&env, &source, &ctx)
}
