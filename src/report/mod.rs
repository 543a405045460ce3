//! The prediction report: per-rank results, the stderr table and the JSON file.
