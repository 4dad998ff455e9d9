// Package warc archives what a crawl fetched as WARC 1.1 files and reads WARC
// files back.
//
// Writing: a Writer turns each HTTP exchange (Exchange: the request as sent,
// the response as received, the remote address and the time) into a request
// record and a response record linked by WARC-Concurrent-To, each with its
// WARC-Record-ID (urn:uuid), WARC-Date, WARC-Target-URI, WARC-IP-Address
// (when known) and the customary SHA-1 base32 WARC-Block-Digest and
// WARC-Payload-Digest. Every record is its own gzip member, so a record can
// be read from its offset alone; files are rotated by size and each starts
// with a warcinfo record carrying the crawl's metadata (Info). Record is safe
// for concurrent use; Close flushes and closes the current file.
//
// The HTTP messages are rebuilt from what an HTTP client exposes (method,
// URL, header and body bytes) rather than captured off the wire: the
// transfer coding is already removed, so the response record holds the
// decoded entity and no Transfer-Encoding header, and the payload digest is
// that of the entity as recorded. A body cut at the fetcher's size limit is
// marked WARC-Truncated: length.
//
// Reading: a Reader iterates over the records of a file, plain or gzip per
// record, checks the block and payload digests it can, and reports broken
// files (a gzip member holding several records, a member or file ending
// inside a record, bytes between records, a record longer than the limit)
// as errors naming the file, the record number and its offset.
//
// # Library
//
// The records are built, digested and framed by github.com/nlnwa/gowarc
// (National Library of Norway, used by its Veidemann harvester). It was
// chosen over github.com/internetarchive/gowarc because:
//   - it builds records from bytes we supply (a record builder plus a file
//     writer with size rotation, per-record gzip, a warcinfo callback and
//     WARC-Concurrent-To), so our own fetcher keeps its politeness, retries
//     and address policy; internetarchive/gowarc is built around its own
//     HTTP client and its rotator takes pre-built records over a channel;
//   - it returns errors: internetarchive/gowarc's rotator panics on I/O
//     errors inside its goroutines, and writes header fields from a map, so
//     their order changes from record to record;
//   - it is light: its importable packages pull in uuid, klauspost/compress,
//     a URL parser and one Prometheus file utility, where
//     internetarchive/gowarc's root package pulls in uTLS, a DNS library,
//     a SOCKS5 proxy, zstd/xz/brotli and a cache.
//
// Where gowarc falls short it is worked around here: its default file-name
// generator looks up the machine's outbound IP address by dialling a public
// address, so Writer names files itself (prefix-timestamp-serial-host
// .warc.gz, WARC 1.1 Annex C); its Close only logs errors, so Close rotates
// first, which returns them; it sets a google/uuid package variable each
// time it makes record options, a data race, so its calls are serialised.
// On the reading side gowarc parses the WARC headers and frames the
// records; gzip members, digests and HTTP messages are handled here so that
// a broken file is reported rather than silently skipped (gowarc drains the
// rest of a gzip member after the first record it holds), and the parser is
// shielded from what makes it panic (a short version line) or loop forever
// (a reader failing with anything but io.EOF). FuzzReader keeps it so.
package warc
