//! The cell's figures from the cgroup columns of its samples: CPU as the
//! difference of the cgroup's own counter (which keeps the time of children
//! that exited, unlike a sum over live processes), memory and PSS means and
//! peaks, the most tasks and fds.
use super::sampler::SamplerOutput;
use crate::results::{MeasurementRow, SampleRow};

fn mean(values: impl Iterator<Item = u64>) -> Option<u64> {
    let (sum, n) = values.fold((0u128, 0u64), |(s, n), v| (s + u128::from(v), n + 1));
    (n > 0).then(|| (sum / u128::from(n)) as u64)
}

impl SamplerOutput {
    /// Fills the cgroup columns of a cell's row (empty where the service
    /// had no cgroup).
    pub fn fill_cgroup_columns(&self, row: &mut MeasurementRow) {
        row.cgroup_cpu_s = self.cgroup_cpu_seconds();
        row.cgroup_memory_mean_bytes = self.cgroup_memory_mean();
        row.cgroup_memory_peak_bytes = self.cgroup_memory_peak();
        row.cgroup_anon_mean_bytes = self.cgroup_anon_mean();
        row.cgroup_file_mean_bytes = self.cgroup_file_mean();
        row.cgroup_tasks_max = self.cgroup_tasks_max();
        row.service_pss_mean_bytes = self.pss_mean();
        row.service_pss_max_bytes = self.pss_max();
        row.service_fds_max = self.fds_max();
    }

    fn column<T>(&self, f: impl Fn(&SampleRow) -> Option<T>) -> impl Iterator<Item = T> {
        self.rows.iter().filter_map(f)
    }

    /// CPU seconds of the cgroup between the first and the last sample.
    pub fn cgroup_cpu_seconds(&self) -> Option<f64> {
        let first = self.rows.first()?.cgroup_cpu_s?;
        let last = self.rows.last()?.cgroup_cpu_s?;
        Some((last - first).max(0.0))
    }

    pub fn cgroup_memory_mean(&self) -> Option<u64> {
        mean(self.column(|r| r.cgroup_memory_bytes))
    }

    /// The kernel's peak over the window, or the highest sample where the
    /// kernel keeps none.
    pub fn cgroup_memory_peak(&self) -> Option<u64> {
        let sampled = self.column(|r| r.cgroup_memory_bytes).max();
        match (self.cgroup_peak_bytes, sampled) {
            (Some(p), Some(s)) => Some(p.max(s)),
            (p, s) => p.or(s),
        }
    }

    pub fn cgroup_anon_mean(&self) -> Option<u64> {
        mean(self.column(|r| r.cgroup_anon_bytes))
    }

    pub fn cgroup_file_mean(&self) -> Option<u64> {
        mean(self.column(|r| r.cgroup_file_bytes))
    }

    pub fn cgroup_tasks_max(&self) -> Option<u32> {
        self.column(|r| r.cgroup_tasks).max()
    }

    pub fn pss_mean(&self) -> Option<u64> {
        mean(self.column(|r| r.pss_bytes))
    }

    pub fn pss_max(&self) -> Option<u64> {
        self.column(|r| r.pss_bytes).max()
    }

    pub fn fds_max(&self) -> Option<u32> {
        self.column(|r| r.fds).max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cgroup_figures_come_from_the_cgroup_columns() {
        let row = |t: f64, cpu: f64, mem: u64, pss: Option<u64>| SampleRow {
            t_s: t,
            cgroup_cpu_s: Some(cpu),
            cgroup_memory_bytes: Some(mem),
            cgroup_tasks: Some(3),
            pss_bytes: pss,
            ..Default::default()
        };
        let out = SamplerOutput {
            rows: vec![
                row(0.0, 10.0, 100, Some(40)),
                row(0.5, 10.4, 300, None),
                row(1.0, 10.9, 200, Some(60)),
            ],
            cgroup_peak_bytes: Some(350),
            ..Default::default()
        };
        assert!((out.cgroup_cpu_seconds().unwrap() - 0.9).abs() < 1e-9);
        assert_eq!(out.cgroup_memory_mean(), Some(200));
        assert_eq!(out.cgroup_memory_peak(), Some(350));
        assert_eq!((out.pss_mean(), out.pss_max()), (Some(50), Some(60)));
        assert_eq!(out.cgroup_tasks_max(), Some(3));
        assert_eq!(SamplerOutput::default().cgroup_cpu_seconds(), None);
    }
}
