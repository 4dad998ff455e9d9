package warc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gowarc "github.com/nlnwa/gowarc"
)

// DefaultMaxFileSize is the size a WARC file is rotated at when
// Options.MaxFileSize is zero (1 GB, as WARC 1.1 Annex C recommends).
const DefaultMaxFileSize = 1 << 30

// ErrClosed is returned by Record after Close.
var ErrClosed = errors.New("warc: writer closed")

// Options configures a Writer.
type Options struct {
	// Dir is the directory the WARC files are written to (created if
	// missing).
	Dir string
	// Prefix starts every file name (default "dwcrawl").
	Prefix string
	// MaxFileSize is the size in bytes at which a file is closed and the
	// next one started (default DefaultMaxFileSize). The check is made
	// before each record, from its length, so a file ends below it unless a
	// single record is larger.
	MaxFileSize int64
	// Info is written in the warcinfo record at the start of every file.
	Info Info
	// Now is the clock of file names and of exchanges without a Time
	// (default time.Now).
	Now func() time.Time
}

// Info is the crawl's metadata, written as the application/warc-fields
// block of each file's warcinfo record.
type Info struct {
	// Software names the writer, e.g. "dwcrawl/1.4.0" (default "dwcrawl").
	Software string
	// Profile and Strategy describe the crawl (dwcrawl-profile,
	// dwcrawl-strategy fields); empty ones are left out.
	Profile  string
	Strategy string
	// UserAgent is the User-Agent the crawler sent (http-header-user-agent).
	UserAgent string
	// Robots is the robots.txt policy ("obey" or "ignore"; robots field).
	Robots string
	// Fields are operator-supplied fields (operator, isPartOf, description…),
	// written in order after the others. Names must be tokens and values
	// single lines.
	Fields []Field
}

// Field is one named value of a WARC header or warc-fields block.
type Field struct {
	Name, Value string
}

// Exchange is one HTTP request and the response it got, as the fetcher sent
// and received them.
type Exchange struct {
	// Method is the request method (default GET).
	Method string
	// URL is the absolute request URL; it becomes WARC-Target-URI.
	URL string
	// Proto is the protocol of both messages (default "HTTP/1.1").
	Proto string
	// RequestHeader is the request header as sent. A Host field is added
	// from URL when absent (net/http keeps it out of the header map).
	RequestHeader http.Header
	// RequestBody is the request body as sent (nil for GET).
	RequestBody []byte
	// Status is the response status code; an exchange without a response
	// (Status 0) is not archived.
	Status int
	// Reason is the reason phrase of the status line ("" : the standard one).
	Reason string
	// ResponseHeader is the response header as received.
	ResponseHeader http.Header
	// ResponseBody is the response body as received, transfer coding
	// removed.
	ResponseBody []byte
	// Truncated says that ResponseBody was cut at the fetcher's size limit
	// (recorded as WARC-Truncated: length).
	Truncated bool
	// RemoteIP is the server's address ("" when unknown, e.g. testbed).
	RemoteIP string
	// Time is when the request was sent (default: now).
	Time time.Time
}

// Writer writes exchanges to size-rotated WARC files. Record is safe for
// concurrent use.
type Writer struct {
	opt Options
	gw  *gowarc.WarcFileWriter

	closed  bool // guarded by gowarcMu
	filesMu sync.Mutex
	files   []string
	records atomic.Int64
}

// gowarcMu serialises everything that makes gowarc record options: gowarc
// sets a package variable of google/uuid each time (uuid.EnableRandPool),
// which is a data race between goroutines. Record holds it while it builds
// and writes (the file writer makes each file's warcinfo record), NewReader
// while it makes its parser. Writing is sequential in gowarc anyway.
var gowarcMu sync.Mutex

var fieldName = regexp.MustCompile(`^[!#$%&'*+.^_` + "`" + `|~0-9A-Za-z-]+$`)

// NewWriter creates opt.Dir and returns a Writer whose first file is
// opened with the first record.
func NewWriter(opt Options) (*Writer, error) {
	if opt.Dir == "" {
		return nil, errors.New("warc: no directory given")
	}
	if opt.Prefix == "" {
		opt.Prefix = "dwcrawl"
	}
	if strings.ContainsAny(opt.Prefix, `/\`) {
		return nil, fmt.Errorf("warc: prefix %q: a file name prefix, not a path", opt.Prefix)
	}
	if opt.MaxFileSize <= 0 {
		opt.MaxFileSize = DefaultMaxFileSize
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Info.Software == "" {
		opt.Info.Software = "dwcrawl"
	}
	info, err := opt.Info.block()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("warc: %w", err)
	}
	names, err := newNamer(opt)
	if err != nil {
		return nil, err
	}
	w := &Writer{opt: opt}
	w.gw = gowarc.NewWarcFileWriter(
		gowarc.WithFileNameGenerator(names),
		gowarc.WithMaxFileSize(opt.MaxFileSize),
		gowarc.WithCompression(true),
		// judge a record's size uncompressed: files stay under MaxFileSize
		// even when the payload does not compress
		gowarc.WithExpectedCompressionRatio(1),
		gowarc.WithMaxConcurrentWriters(1),
		gowarc.WithAddWarcConcurrentToHeader(true),
		gowarc.WithWarcInfoFunc(func(rb gowarc.WarcRecordBuilder) error {
			_, err := rb.Write(info)
			return err
		}),
		gowarc.WithAfterFileCreationHook(func(name string, _ int64, _ string) error {
			w.filesMu.Lock()
			w.files = append(w.files, name)
			w.filesMu.Unlock()
			return nil
		}),
		gowarc.WithRecordOptions(recordOptions()...),
	)
	return w, nil
}

// recordOptions make gowarc refuse to build a record that breaks the
// specification instead of writing it with a warning.
func recordOptions() []gowarc.WarcRecordOption {
	return []gowarc.WarcRecordOption{
		gowarc.WithVersion(gowarc.V1_1),
		gowarc.WithSyntaxErrorPolicy(gowarc.ErrFail),
		gowarc.WithSpecViolationPolicy(gowarc.ErrFail),
		gowarc.WithUnknownRecordTypePolicy(gowarc.ErrFail),
		gowarc.WithDefaultDigestAlgorithm("sha1"),
		gowarc.WithDefaultDigestEncoding(gowarc.Base32),
	}
}

// Record archives ex as a request record and a response record. It returns
// an error for an exchange it cannot archive (no response, bad URL) and for
// write failures; the writer stays usable after either.
func (w *Writer) Record(ctx context.Context, ex Exchange) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	gowarcMu.Lock()
	defer gowarcMu.Unlock()
	if w.closed {
		return ErrClosed
	}
	req, resp, err := w.build(ex)
	if err != nil {
		return err
	}
	var errs []error
	for _, r := range w.gw.Write(req, resp) {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("warc: writing %s: %w", ex.URL, errors.Join(errs...))
	}
	w.records.Add(2)
	return nil
}

// build makes the two records of ex.
func (w *Writer) build(ex Exchange) (req, resp gowarc.WarcRecord, err error) {
	if ex.Status == 0 {
		return nil, nil, fmt.Errorf("warc: %s: no response to archive", ex.URL)
	}
	if ex.Status < 100 || ex.Status > 999 {
		return nil, nil, fmt.Errorf("warc: %s: bad status %d", ex.URL, ex.Status)
	}
	u, err := url.Parse(ex.URL)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return nil, nil, fmt.Errorf("warc: %q is not an absolute URL", ex.URL)
	}
	if ex.RemoteIP != "" {
		if _, err := netip.ParseAddr(ex.RemoteIP); err != nil {
			return nil, nil, fmt.Errorf("warc: %s: remote IP %q: %w", ex.URL, ex.RemoteIP, err)
		}
	}
	if ex.Method == "" {
		ex.Method = http.MethodGet
	}
	if ex.Proto == "" {
		ex.Proto = "HTTP/1.1"
	}
	if ex.Time.IsZero() {
		ex.Time = w.opt.Now()
	}
	req, err = w.record(gowarc.Request, "request", &ex, requestBlock(u, &ex))
	if err != nil {
		return nil, nil, err
	}
	resp, err = w.record(gowarc.Response, "response", &ex, responseBlock(&ex))
	if err != nil {
		req.Close()
		return nil, nil, err
	}
	return req, resp, nil
}

// record builds one record of ex with block as its content; gowarc adds the
// record ID, Content-Length and the digests.
func (w *Writer) record(t gowarc.RecordType, msgtype string, ex *Exchange, block []byte) (gowarc.WarcRecord, error) {
	rb := gowarc.NewRecordBuilder(t, recordOptions()...)
	rb.AddWarcHeader(gowarc.WarcDate, ex.Time.UTC().Format(time.RFC3339Nano))
	rb.AddWarcHeader(gowarc.WarcTargetURI, ex.URL)
	if ex.RemoteIP != "" {
		rb.AddWarcHeader(gowarc.WarcIPAddress, ex.RemoteIP)
	}
	if t == gowarc.Response && ex.Truncated {
		rb.AddWarcHeader(gowarc.WarcTruncated, "length")
	}
	rb.AddWarcHeader(gowarc.ContentType, "application/http;msgtype="+msgtype)
	if _, err := rb.Write(block); err != nil {
		rb.Close()
		return nil, fmt.Errorf("warc: %s: %w", ex.URL, err)
	}
	rec, _, err := rb.Build()
	if err != nil {
		if rec != nil {
			rec.Close()
		}
		return nil, fmt.Errorf("warc: %s %s record: %w", ex.URL, msgtype, err)
	}
	return rec, nil
}

// requestBlock is the request as an HTTP/1.1 message.
func requestBlock(u *url.URL, ex *Exchange) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s %s\r\n", ex.Method, u.RequestURI(), ex.Proto)
	if ex.RequestHeader.Get("Host") == "" {
		fmt.Fprintf(&b, "Host: %s\r\n", u.Host)
	}
	ex.RequestHeader.Write(&b) // sorted by name; newlines in values become spaces
	b.WriteString("\r\n")
	b.Write(ex.RequestBody)
	return b.Bytes()
}

// responseBlock is the response as an HTTP/1.1 message. Transfer-Encoding
// is left out: the body is the decoded entity.
func responseBlock(ex *Exchange) []byte {
	var b bytes.Buffer
	reason := ex.Reason
	if reason == "" {
		reason = http.StatusText(ex.Status)
	}
	fmt.Fprintf(&b, "%s %d %s\r\n", ex.Proto, ex.Status, reason)
	ex.ResponseHeader.WriteSubset(&b, map[string]bool{"Transfer-Encoding": true})
	b.WriteString("\r\n")
	b.Write(ex.ResponseBody)
	return b.Bytes()
}

// Close writes what is pending and closes the current file. Later calls to
// Record return ErrClosed.
func (w *Writer) Close() error {
	gowarcMu.Lock()
	defer gowarcMu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	// Rotate closes and renames the open file and returns the errors that
	// gowarc's Close would only log.
	err := w.gw.Rotate()
	w.gw.Close()
	if err != nil {
		return fmt.Errorf("warc: closing: %w", err)
	}
	return nil
}

// Files lists the paths of the complete files written so far, in order.
// The file being written is not among them until it is rotated or closed.
func (w *Writer) Files() []string {
	w.filesMu.Lock()
	defer w.filesMu.Unlock()
	return append([]string(nil), w.files...)
}

// Records is the number of records written, warcinfo records excluded.
func (w *Writer) Records() int64 { return w.records.Load() }

// Dir is the directory the files are written to.
func (w *Writer) Dir() string { return w.opt.Dir }

// block renders the warcinfo fields.
func (in Info) block() ([]byte, error) {
	fields := []Field{
		{"software", in.Software},
		{"format", "WARC File Format 1.1"},
		{"conformsTo", "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"},
	}
	for _, f := range []Field{{"dwcrawl-profile", in.Profile}, {"dwcrawl-strategy", in.Strategy},
		{"http-header-user-agent", in.UserAgent}, {"robots", in.Robots}} {
		if f.Value != "" {
			fields = append(fields, f)
		}
	}
	fields = append(fields, in.Fields...)
	var b bytes.Buffer
	for _, f := range fields {
		if !fieldName.MatchString(f.Name) {
			return nil, fmt.Errorf("warc: warcinfo field name %q: not a token", f.Name)
		}
		if strings.ContainsAny(f.Value, "\r\n") {
			return nil, fmt.Errorf("warc: warcinfo field %s: the value spans lines", f.Name)
		}
		fmt.Fprintf(&b, "%s: %s\r\n", f.Name, f.Value)
	}
	return b.Bytes(), nil
}

// namer names files prefix-timestamp-serial-host.warc (gowarc adds .gz and,
// while the file is open, .open), continuing the serials found in the
// directory so that a resumed crawl never reuses a name.
type namer struct {
	dir, prefix, host string
	now               func() time.Time
	serial            atomic.Int64
}

func newNamer(opt Options) (*namer, error) {
	host, _ := os.Hostname()
	host = strings.Map(func(r rune) rune {
		if r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return -1
	}, host)
	if host == "" {
		host = "localhost"
	}
	n := &namer{dir: opt.Dir, prefix: opt.Prefix, host: host, now: opt.Now}
	ents, err := os.ReadDir(opt.Dir)
	if err != nil {
		return nil, fmt.Errorf("warc: %w", err)
	}
	var last int64
	for _, e := range ents {
		if s, ok := n.serialOf(e.Name()); ok && s > last {
			last = s
		}
	}
	n.serial.Store(last)
	return n, nil
}

// serialOf parses the serial of a file name this namer would produce.
func (n *namer) serialOf(name string) (int64, bool) {
	rest, ok := strings.CutPrefix(name, n.prefix+"-")
	if !ok {
		return 0, false
	}
	parts := strings.SplitN(rest, "-", 3) // timestamp, serial, host.warc…
	if len(parts) < 3 || len(parts[0]) != 14 {
		return 0, false
	}
	s, err := strconv.ParseInt(parts[1], 10, 64)
	return s, err == nil
}

// NewWarcfileName implements gowarc.WarcFileNameGenerator.
func (n *namer) NewWarcfileName() (string, string) {
	ts := n.now().UTC().Format("20060102150405")
	return n.dir, fmt.Sprintf("%s-%s-%05d-%s.warc", n.prefix, ts, n.serial.Add(1), n.host)
}
