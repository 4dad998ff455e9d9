package warc

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	gowarc "github.com/nlnwa/gowarc"
)

// DefaultMaxBlock is the largest record block a Reader loads when
// ReaderOptions.MaxBlock is zero.
const DefaultMaxBlock = 256 << 20

// Errors a Reader wraps (with the file, record number and offset) when a
// file cannot be read further.
var (
	// ErrNotPerRecord: a gzip member holds more than one record (the file
	// was compressed whole, not record by record).
	ErrNotPerRecord = errors.New("more than one record in a gzip member: the file is not compressed record by record")
	// ErrTruncated: the file or a gzip member ends inside a record.
	ErrTruncated = errors.New("record truncated")
	// ErrGarbage: bytes that are not a record where a record should start.
	ErrGarbage = errors.New("unexpected bytes between records")
	// ErrTooLarge: a block longer than ReaderOptions.MaxBlock.
	ErrTooLarge = errors.New("record block over the size limit")
)

// ReaderOptions configures a Reader.
type ReaderOptions struct {
	// MaxBlock is the largest block loaded into memory (default
	// DefaultMaxBlock); a longer record is an error.
	MaxBlock int64
}

// Reader reads the records of a WARC file, plain or gzip-compressed record
// by record. It is not safe for concurrent use.
type Reader struct {
	name   string
	closer io.Closer
	cr     *countingReader
	src    *eofReader    // over cr: keeps the file's read error
	br     *bufio.Reader // over cr: gzip reads members from it exactly
	gz     *gzip.Reader
	mb     *bufio.Reader // over the current gzip member
	u      gowarc.Unmarshaler
	opt    ReaderOptions
	n      int     // records read
	start  int64   // offset of the record being read
	prev   *Record // the last record returned
	err    error   // sticky
}

// Open opens the WARC file at path.
func Open(path string, opt ReaderOptions) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("warc: %w", err)
	}
	r := NewReader(f, path, opt)
	r.closer = f
	return r, nil
}

// NewReader reads a WARC stream; name labels errors.
func NewReader(rd io.Reader, name string, opt ReaderOptions) *Reader {
	if opt.MaxBlock <= 0 {
		opt.MaxBlock = DefaultMaxBlock
	}
	cr := &countingReader{r: rd}
	src := &eofReader{r: cr}
	gowarcMu.Lock()
	defer gowarcMu.Unlock()
	return &Reader{
		name: name, cr: cr, src: src, br: bufio.NewReaderSize(src, 64<<10), opt: opt,
		// gowarc frames the records and parses the WARC headers; blocks,
		// digests and gzip members are checked here (see Next).
		u: gowarc.NewUnmarshaler(
			gowarc.WithSyntaxErrorPolicy(gowarc.ErrWarn),
			gowarc.WithSpecViolationPolicy(gowarc.ErrIgnore),
			gowarc.WithUnknownRecordTypePolicy(gowarc.ErrWarn),
			gowarc.WithSkipParseBlock(),
			gowarc.WithAddMissingRecordId(false),
			gowarc.WithAddMissingContentLength(false),
			gowarc.WithAddMissingDigest(false),
			gowarc.WithFixContentLength(false),
			gowarc.WithFixDigest(false),
			gowarc.WithFixSyntaxErrors(false),
		),
	}
}

// Close closes the file opened by Open.
func (r *Reader) Close() error {
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

// Record is one WARC record, read whole.
type Record struct {
	// Offset is where the record (its gzip member) starts in the file.
	Offset int64
	// Version is the record's version line ("WARC/1.1").
	Version string
	// Header holds the WARC header fields in file order.
	Header Fields
	// Block is the record's content block.
	Block []byte
	// Problems lists what is wrong with the record without stopping the
	// reader: digests that do not match or cannot be checked, header syntax
	// errors. Empty for a sound record.
	Problems []string
}

// Type is the WARC-Type (warcinfo, request, response, revisit…).
func (rec *Record) Type() string { return rec.Header.Get("WARC-Type") }

// ID is the WARC-Record-ID, angle brackets included.
func (rec *Record) ID() string { return rec.Header.Get("WARC-Record-ID") }

// TargetURI is the WARC-Target-URI.
func (rec *Record) TargetURI() string { return rec.Header.Get("WARC-Target-URI") }

// Date parses the WARC-Date.
func (rec *Record) Date() (time.Time, error) {
	return time.Parse(time.RFC3339Nano, rec.Header.Get("WARC-Date"))
}

// Fields are WARC header fields (or a warc-fields block) in order.
type Fields []Field

// Get returns the first value of the field named name (case-insensitive).
func (fs Fields) Get(name string) string {
	for _, f := range fs {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Values returns every value of the field named name.
func (fs Fields) Values(name string) []string {
	var out []string
	for _, f := range fs {
		if strings.EqualFold(f.Name, name) {
			out = append(out, f.Value)
		}
	}
	return out
}

// Next returns the next record, or io.EOF after the last one. An error
// other than io.EOF names the file, the record and its offset, and every
// later call returns it again.
func (r *Reader) Next() (*Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	rec, err := r.next()
	if err != nil {
		if err != io.EOF {
			err = fmt.Errorf("warc: %s: record %d at offset %d: %w", r.name, r.n+1, r.start, err)
		}
		r.err = err
		return nil, err
	}
	r.n++
	r.prev = rec
	return rec, nil
}

// offset is the file offset of the next unread byte.
func (r *Reader) offset() int64 { return r.cr.n - int64(r.br.Buffered()) }

func (r *Reader) next() (*Record, error) {
	// tolerate blank lines between records (some writers add them)
	skipped, err := r.skipNewlines(r.br)
	if err != nil {
		return nil, err
	}
	off := r.offset()
	r.start = off
	magic, err := r.br.Peek(2)
	if err == io.EOF || len(magic) == 0 {
		if skipped > 0 && r.n == 0 {
			return nil, fmt.Errorf("%w: only blank lines", ErrGarbage)
		}
		return nil, io.EOF
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		return r.nextGzip(off)
	}
	rec, err := r.read(r.br, off)
	if r.src.err != nil {
		return nil, r.src.err
	}
	return rec, err
}

// nextGzip reads the record of the gzip member at off and checks that the
// member holds nothing else.
func (r *Reader) nextGzip(off int64) (*Record, error) {
	var err error
	if r.gz == nil {
		r.gz, err = gzip.NewReader(r.br)
	} else {
		err = r.gz.Reset(r.br)
	}
	if err != nil {
		return nil, fmt.Errorf("gzip header: %w", gzipErr(err))
	}
	r.gz.Multistream(false)
	// a member inflating past one record's worth is refused before it
	// fills memory or time (a gzip bomb of blank or header lines)
	member := &eofReader{r: &capReader{r: r.gz, max: r.opt.MaxBlock + maxOverhead}}
	if r.mb == nil {
		r.mb = bufio.NewReaderSize(member, 64<<10)
	} else {
		r.mb.Reset(member)
	}
	rec, err := r.read(r.mb, off)
	if member.err != nil {
		return nil, gzipErr(member.err) // the cause of a short record
	}
	if err != nil {
		return nil, err
	}
	if _, err := r.skipNewlines(r.mb); err != nil {
		return nil, err
	}
	rest, err := r.mb.Peek(5)
	if member.err != nil {
		err = member.err
	}
	switch {
	case bytes.Equal(rest, []byte("WARC/")):
		return nil, ErrNotPerRecord
	case len(rest) > 0:
		return nil, fmt.Errorf("%w: %q after the record, inside its gzip member", ErrGarbage, rest)
	case err != io.EOF:
		return nil, gzipErr(err)
	}
	return rec, nil
}

// versionLine is how a record starts.
var versionLine = regexp.MustCompile(`^WARC/[0-9]+\.[0-9]+\r?\n`)

// read parses one uncompressed record from b. gowarc panics on some
// malformed input (a short version line, for one): a panic becomes the
// error of this record.
func (r *Reader) read(b *bufio.Reader, off int64) (rec *Record, err error) {
	head, _ := b.Peek(16)
	if !versionLine.Match(head) {
		if bytes.HasPrefix(head, []byte("WARC/")) {
			return nil, fmt.Errorf("bad version line %q", head)
		}
		return nil, r.garbage(head)
	}
	defer func() {
		if p := recover(); p != nil {
			rec, err = nil, fmt.Errorf("malformed record (the WARC parser failed: %v)", p)
		}
	}()
	wr, _, val, err := r.u.Unmarshal(b)
	if err != nil {
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: the data ends inside the WARC header", ErrTruncated)
		}
		return nil, gzipErr(err)
	}
	defer wr.Close()
	rec = &Record{Offset: off, Version: wr.Version().String()}
	for _, f := range *wr.WarcHeader() {
		rec.Header = append(rec.Header, Field{f.Name, f.Value})
	}
	if val != nil {
		for _, e := range *val {
			rec.Problems = append(rec.Problems, e.Error())
		}
	}
	length, err := strconv.ParseInt(rec.Header.Get("Content-Length"), 10, 64)
	if err != nil || length < 0 {
		return nil, fmt.Errorf("%s record %s: bad Content-Length %q", rec.Type(), rec.TargetURI(), rec.Header.Get("Content-Length"))
	}
	if length > r.opt.MaxBlock {
		return nil, fmt.Errorf("%s record %s: Content-Length %d: %w (%d)", rec.Type(), rec.TargetURI(), length, ErrTooLarge, r.opt.MaxBlock)
	}
	raw, err := wr.Block().RawBytes()
	if err != nil {
		return nil, err
	}
	rec.Block, err = io.ReadAll(raw)
	if err != nil {
		return nil, gzipErr(err)
	}
	if int64(len(rec.Block)) < length {
		return nil, fmt.Errorf("%w: %s record %s: the block ends after %d of its %d bytes", ErrTruncated, rec.Type(), rec.TargetURI(), len(rec.Block), length)
	}
	rec.Problems = append(rec.Problems, rec.checkDigests()...)
	return rec, nil
}

// garbage describes the bytes found where a record should start: most
// often the previous record is shorter than its Content-Length says.
func (r *Reader) garbage(head []byte) error {
	if r.prev == nil {
		return fmt.Errorf("%w: %q before the first record", ErrGarbage, head)
	}
	return fmt.Errorf("%w: %q after the %s record %s at offset %d (truncated, or a wrong Content-Length)",
		ErrGarbage, head, r.prev.Type(), r.prev.TargetURI(), r.prev.Offset)
}

// maxOverhead bounds what a gzip member may hold besides the block (the
// WARC header) and the blank lines tolerated between records.
const maxOverhead = 1 << 20

// skipNewlines consumes CR and LF bytes, returning how many.
func (r *Reader) skipNewlines(b *bufio.Reader) (int, error) {
	n := 0
	for {
		if n > maxOverhead {
			return n, fmt.Errorf("%w: over %d blank lines", ErrGarbage, maxOverhead/2)
		}
		c, err := b.ReadByte()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, gzipErr(err)
		}
		if c != '\r' && c != '\n' {
			return n, b.UnreadByte()
		}
		n++
	}
}

// gzipErr names the failures of a compressed file.
func gzipErr(err error) error {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: the gzip member ends early: %w", ErrTruncated, err)
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader):
		return fmt.Errorf("corrupt gzip data: %w", err)
	}
	var ce flate.CorruptInputError
	if errors.As(err, &ce) {
		return fmt.Errorf("corrupt gzip data: %w", err)
	}
	return err
}

// HTTPMessage is the HTTP request or response held by a request, response
// or revisit record.
type HTTPMessage struct {
	// StartLine is the request line or the status line.
	StartLine string
	// Status is the status code of a response (0 for a request).
	Status int
	Header http.Header
	// Payload is what follows the header, as recorded (a chunked body is
	// still chunked: see Body).
	Payload []byte
}

// HTTP parses the record's block as an HTTP message; the record must be of
// Content-Type application/http.
func (rec *Record) HTTP() (*HTTPMessage, error) {
	if ct := rec.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(ct), "application/http") {
		return nil, fmt.Errorf("warc: %s record %s: Content-Type %q is not application/http", rec.Type(), rec.TargetURI(), ct)
	}
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(rec.Block)))
	line, err := tp.ReadLine()
	if err != nil {
		return nil, fmt.Errorf("warc: %s record %s: no HTTP start line: %w", rec.Type(), rec.TargetURI(), err)
	}
	m := &HTTPMessage{StartLine: line}
	if strings.HasPrefix(line, "HTTP/") {
		_, code, _ := strings.Cut(line, " ")
		code, _, _ = strings.Cut(code, " ")
		if m.Status, err = strconv.Atoi(code); err != nil {
			return nil, fmt.Errorf("warc: %s record %s: bad status line %q", rec.Type(), rec.TargetURI(), line)
		}
	}
	// a header without its closing blank line is common in request and
	// revisit records: it is accepted with an empty payload
	h, err := tp.ReadMIMEHeader()
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("warc: %s record %s: HTTP header: %w", rec.Type(), rec.TargetURI(), err)
	}
	m.Header = http.Header(h)
	if i := headerEnd(rec.Block); i >= 0 {
		m.Payload = rec.Block[i:]
	}
	return m, nil
}

// chunkSize matches the first line of a chunked body.
var chunkSize = regexp.MustCompile(`^[0-9a-fA-F]+[ \t]*(;[^\r\n]*)?\r?\n`)

// Body is the payload with a chunked transfer coding removed. Some
// recorders stored the decoded body under a Transfer-Encoding: chunked
// header; a payload that does not start as a chunked body is returned as
// is.
func (m *HTTPMessage) Body() ([]byte, error) {
	te := strings.ToLower(strings.Join(m.Header.Values("Transfer-Encoding"), ","))
	if !strings.Contains(te, "chunked") || !chunkSize.Match(m.Payload) {
		return m.Payload, nil
	}
	b, err := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(m.Payload)))
	if err != nil {
		return nil, fmt.Errorf("warc: chunked body: %w", err)
	}
	return b, nil
}

// headerEnd is the index just past the blank line ending an HTTP header
// (-1 if there is none).
func headerEnd(b []byte) int {
	if i := bytes.Index(b, []byte("\r\n\r\n")); i >= 0 {
		return i + 4
	}
	if i := bytes.Index(b, []byte("\n\n")); i >= 0 {
		return i + 2
	}
	return -1
}

// eofReader turns the first read error of r into io.EOF for its reader and
// keeps it in err. gowarc's header parser retries a reader that fails with
// anything but io.EOF forever (a truncated gzip member fails with
// io.ErrUnexpectedEOF); the record then ends short and err tells why.
type eofReader struct {
	r   io.Reader
	err error
}

func (e *eofReader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, io.EOF
	}
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
		err = io.EOF
	}
	return n, err
}

// capReader fails with ErrTooLarge once r has given max bytes.
type capReader struct {
	r      io.Reader
	max, n int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n >= c.max {
		return 0, fmt.Errorf("%w: a gzip member inflates past %d bytes", ErrTooLarge, c.max)
	}
	if int64(len(p)) > c.max-c.n {
		p = p[:c.max-c.n]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
