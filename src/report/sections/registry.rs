//! The registry: every section of the report, those rolled up in the
//! summary and those read from the run beyond it, in the order report.md
//! shows them.
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
    protocols, request_mix, scenarios, search, verdict,
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

/// A section that is one field of the summary, under the field's name.
macro_rules! summary_section {
    ($field:ident) => {
        Section {
            name: stringify!($field),
            build: |_, summary| Built::data(&summary.$field),
        }
    };
}

/// Every section, in report order.
pub const SECTIONS: &[Section] = &[
    Section {
        name: "verdict",
        build: |run, _| Built::data(&verdict::VerdictView::of(run)),
    },
    summary_section!(findings),
    summary_section!(win_counts),
    summary_section!(pairs),
    summary_section!(efficiency_pairs),
    summary_section!(axis_effects),
    summary_section!(host_share),
    Section {
        name: "scenarios",
        build: |run, summary| Built::data(&scenarios::ScenariosView::of(run, summary)),
    },
    summary_section!(peaks),
    summary_section!(equal_load),
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
    summary_section!(wins),
    summary_section!(pivot),
    summary_section!(cells),
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
        name: "protocols",
        build: |run, _| Built::data(&protocols::ProtocolsView::of(run)),
    },
    Section {
        name: "profiles",
        build: |run, _| Built::data(&profiles::ProfilesView::of(run)),
    },
    summary_section!(suspect),
    summary_section!(failed),
    summary_section!(suspect_reasons),
    summary_section!(failed_reasons),
    summary_section!(startup),
    summary_section!(cold_starts),
    Section {
        name: "nmt",
        build: |run, _| Built::data(&nmt::NmtView::of(run)),
    },
    summary_section!(log_caps),
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
