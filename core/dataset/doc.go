// Package dataset turns the records that surfacing journaled in a crawl
// directory (core/surface's StoreJournal, one source per interface) into one
// dataset: every record with its provenance (source, interface, site, the
// query that downloaded it first, URL, time), its fields and text, and a
// signature that links the records of different databases that are the
// same (Signature). It exports the dataset as JSON lines, CSV or Parquet
// (Dataset.Write) and lists its databases with their coverage estimates
// (Dataset.Databases). docs/dataset.md documents the columns and the rule.
package dataset
