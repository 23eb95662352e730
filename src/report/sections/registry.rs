//! The registry: every section of the report that is read from the run
//! beyond the summary, in the order report.md and report.html show them.
//! Each entry names its context key (the name its template block tests:
//! `{% if <name> %}`) and computes its data, and the charts it draws, from
//! the run and its summary; `render_run` folds the registry into the
//! template context and the charts, so no section is added anywhere else.
use minijinja::Value;

use crate::report::analysis::summary::Summary;
use crate::report::charts::draw::Chart;
use crate::report::error::ReportError;
use crate::report::sections::{
    adaptive, connections, dependencies, first_requests, memory_phases, nmt, outliers, profiles,
    request_mix, scenarios, search,
};
use crate::results::RunData;

/// What one section computed: its template data and its charts (most have none).
pub struct Built {
    pub value: Value,
    pub charts: Vec<Chart>,
}

impl Built {
    fn data<T: serde::Serialize>(data: &T) -> Result<Built, ReportError> {
        Ok(Built {
            value: Value::from(minijinja::value::Serde(data)),
            charts: Vec::new(),
        })
    }
}

/// One report section: its name (the template context key of its data and
/// of its blocks in report.md.j2 and report.html.j2) and how it is computed.
pub struct Section {
    pub name: &'static str,
    pub build: fn(&RunData, &Summary) -> Result<Built, ReportError>,
}

/// Every section, in report order.
pub const SECTIONS: &[Section] = &[
    Section {
        name: "scenarios",
        build: |run, summary| Built::data(&scenarios::ScenariosView::of(run, summary)),
    },
    Section {
        name: "search",
        build: |run, summary| {
            let views = search::views(run)?;
            Ok(Built {
                charts: search::chart(&views, &summary.runtimes)?
                    .into_iter()
                    .collect(),
                value: Value::from(minijinja::value::Serde(&views)),
            })
        },
    },
    Section {
        name: "max_latency",
        build: |run, _| Built::data(&outliers::views(run)),
    },
    Section {
        name: "memory",
        build: |run, summary| {
            let view = memory_phases::view(run)?;
            Ok(Built {
                charts: memory_phases::chart(view.as_ref(), &summary.runtimes)?
                    .into_iter()
                    .collect(),
                value: Value::from(minijinja::value::Serde(&view)),
            })
        },
    },
    Section {
        name: "adaptive",
        build: |run, _| Built::data(&adaptive::AdaptiveView::of(run)),
    },
    Section {
        name: "request_mix",
        build: |run, _| Built::data(&request_mix::RequestMixView::of(run)?),
    },
    Section {
        name: "dependencies",
        build: |run, _| Built::data(&dependencies::DependenciesView::of(run)?),
    },
    Section {
        name: "connections",
        build: |run, _| Built::data(&connections::ConnectionsView::of(run)),
    },
    Section {
        name: "profiles",
        build: |run, _| Built::data(&profiles::ProfilesView::of(run)),
    },
    Section {
        name: "nmt",
        build: |run, _| Built::data(&nmt::NmtView::of(run)),
    },
    Section {
        name: "first_requests",
        build: |run, summary| Built::data(&first_requests::view(run, &summary.runtimes)?),
    },
];

/// Every section's data under its name, in registry order.
pub type SectionValues = Vec<(&'static str, Value)>;

/// Every section built, in registry order: `(name, data)` and the charts
/// they drew.
pub fn build_all(
    run: &RunData,
    summary: &Summary,
) -> Result<(SectionValues, Vec<Chart>), ReportError> {
    let mut values = Vec::with_capacity(SECTIONS.len());
    let mut charts = Vec::new();
    for section in SECTIONS {
        let built = (section.build)(run, summary)?;
        values.push((section.name, built.value));
        charts.extend(built.charts);
    }
    Ok((values, charts))
}
