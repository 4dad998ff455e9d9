package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/testseed"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)

// sampleExchange is the i-th exchange of a test crawl: pages, a POST, an
// error page, a truncated body, IPv4, IPv6 and unknown addresses. With rng,
// the bodies are random bytes of random length (incompressible).
func sampleExchange(i int, rng *rand.Rand) Exchange {
	ex := Exchange{
		URL:           fmt.Sprintf("http://site%d.example/dir/page%d.html?q=%d", i%7, i, i),
		RequestHeader: http.Header{"User-Agent": {"dwcrawl/test (+https://example.org/bot)"}, "Accept": {"text/html"}},
		Status:        200,
		ResponseHeader: http.Header{"Content-Type": {"text/html; charset=utf-8"}, "Server": {"test"},
			"Set-Cookie": {"a=1", "b=2"}},
		ResponseBody: fmt.Appendf(nil, "<html><body><h1>page %d</h1>%s</body></html>", i, strings.Repeat("deep web ", i%50)),
		Time:         t0.Add(time.Duration(i) * time.Second),
	}
	switch i % 5 {
	case 0:
		ex.RemoteIP = "127.0.0.1"
	case 1:
		ex.RemoteIP = "::1"
	case 2:
		ex.Method, ex.RequestBody = http.MethodPost, []byte("q=used+cars&zip=10001")
		ex.RequestHeader.Set("Content-Type", "application/x-www-form-urlencoded")
	case 3:
		ex.Status, ex.Reason = 404, "Nope"
	case 4:
		ex.Truncated = true
	}
	if rng != nil {
		ex.ResponseBody = make([]byte, 1000+rng.IntN(12000))
		for j := range ex.ResponseBody {
			ex.ResponseBody[j] = byte(rng.UintN(256))
		}
	}
	ex.ResponseHeader.Set("Content-Length", fmt.Sprint(len(ex.ResponseBody)))
	return ex
}

func sha1b32(b []byte) string {
	s := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

var uuidID = regexp.MustCompile(`^<urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}>$`)

// TestRoundTrip writes exchanges from several goroutines into files rotated
// at 64 KB, reads every file back and checks each record against the
// exchange it came from.
func TestRoundTrip(t *testing.T) {
	const n, workers, maxSize = 60, 6, 64 << 10
	seed := testseed.Seed(t)
	dir := t.TempDir()
	info := Info{Software: "dwcrawl/1.2.3", Profile: "domains/auto.lua", Strategy: "smartcrawler", UserAgent: "dwcrawl/1.2.3", Robots: "obey",
		Fields: []Field{{"operator", "Test Lab <lab@example.org>"}, {"isPartOf", "auto-2026"}}}
	w, err := NewWriter(Options{Dir: dir, MaxFileSize: maxSize, Info: info})
	if err != nil {
		t.Fatal(err)
	}
	exs := make([]Exchange, n)
	for i := range exs {
		var rng *rand.Rand
		if i%2 == 0 {
			rng = rand.New(rand.NewPCG(seed, uint64(i)))
		}
		exs[i] = sampleExchange(i, rng)
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for k := range workers {
		wg.Go(func() {
			for i := k; i < n; i += workers {
				errs <- w.Record(t.Context(), exs[i])
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Records() != 2*n {
		t.Errorf("Records() = %d, want %d", w.Records(), 2*n)
	}

	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	slices.Sort(files)
	written := w.Files()
	slices.Sort(written)
	if len(files) < 3 || len(files) != len(written) {
		t.Fatalf("files on disk %v, writer reports %v: want several, all closed", files, written)
	}
	byURL := map[string]Exchange{}
	for _, ex := range exs {
		byURL[ex.URL] = ex
	}
	byID := map[string]*Record{}
	var all []*Record
	for i, path := range files {
		if path != written[i] || !strings.HasSuffix(path, ".warc.gz") || !strings.HasPrefix(filepath.Base(path), "dwcrawl-") {
			t.Errorf("file %s (writer: %s)", path, written[i])
		}
		st, _ := os.Stat(path)
		if st.Size() > maxSize+2<<10 {
			t.Errorf("%s: %d bytes, rotation at %d", path, st.Size(), maxSize)
		}
		recs, err := readAll(t, path)
		if err != nil {
			t.Fatal(err)
		}
		if got := gzipMembers(t, path); got != len(recs) {
			t.Errorf("%s: %d gzip members for %d records", path, got, len(recs))
		}
		wi := recs[0]
		checkWarcinfo(t, wi, filepath.Base(path), info)
		for _, rec := range recs[1:] {
			if rec.Header.Get("WARC-Warcinfo-ID") != wi.ID() {
				t.Errorf("%s: WARC-Warcinfo-ID %q, the file's warcinfo is %s", rec.ID(), rec.Header.Get("WARC-Warcinfo-ID"), wi.ID())
			}
		}
		for _, rec := range recs {
			if len(rec.Problems) > 0 || rec.Version != "WARC/1.1" || !uuidID.MatchString(rec.ID()) {
				t.Errorf("%s %s: %s, problems %q", rec.Version, rec.ID(), rec.Type(), rec.Problems)
			}
			if byID[rec.ID()] != nil {
				t.Errorf("record ID %s used twice", rec.ID())
			}
			byID[rec.ID()] = rec
		}
		all = append(all, recs[1:]...)
	}
	if len(all) != 2*n {
		t.Fatalf("%d records read, want %d", len(all), 2*n)
	}
	for _, rec := range all {
		ex, ok := byURL[rec.TargetURI()]
		if !ok {
			t.Fatalf("record for unknown URL %q", rec.TargetURI())
		}
		other := byID[rec.Header.Get("WARC-Concurrent-To")]
		if other == nil || other.TargetURI() != rec.TargetURI() || other.Header.Get("WARC-Concurrent-To") != rec.ID() || other.Type() == rec.Type() {
			t.Errorf("%s %s: WARC-Concurrent-To %q does not link the pair", rec.Type(), rec.TargetURI(), rec.Header.Get("WARC-Concurrent-To"))
		}
		if d, err := rec.Date(); err != nil || !d.Equal(ex.Time) {
			t.Errorf("%s: WARC-Date %q, exchange at %s", rec.TargetURI(), rec.Header.Get("WARC-Date"), ex.Time)
		}
		if rec.Header.Get("WARC-IP-Address") != ex.RemoteIP {
			t.Errorf("%s: WARC-IP-Address %q, want %q", rec.TargetURI(), rec.Header.Get("WARC-IP-Address"), ex.RemoteIP)
		}
		if rec.Header.Get("WARC-Block-Digest") != sha1b32(rec.Block) {
			t.Errorf("%s: block digest %s", rec.TargetURI(), rec.Header.Get("WARC-Block-Digest"))
		}
		m, err := rec.HTTP()
		if err != nil {
			t.Fatal(err)
		}
		switch rec.Type() {
		case "request":
			checkRequest(t, rec, m, ex)
		case "response":
			checkResponse(t, rec, m, ex)
		default:
			t.Errorf("record type %s", rec.Type())
		}
	}
}

func checkWarcinfo(t *testing.T, wi *Record, file string, info Info) {
	t.Helper()
	if wi.Type() != "warcinfo" || wi.Header.Get("WARC-Filename") != file || wi.Header.Get("Content-Type") != "application/warc-fields" {
		t.Fatalf("%s starts with %s %v", file, wi.Type(), wi.Header)
	}
	fields := parseFields(t, wi.Block)
	want := map[string]string{"software": info.Software, "format": "WARC File Format 1.1", "dwcrawl-profile": info.Profile,
		"dwcrawl-strategy": info.Strategy, "http-header-user-agent": info.UserAgent, "robots": "obey",
		"operator": "Test Lab <lab@example.org>", "isPartOf": "auto-2026"}
	for k, v := range want {
		if fields.Get(k) != v {
			t.Errorf("%s warcinfo %s = %q, want %q", file, k, fields.Get(k), v)
		}
	}
}

func parseFields(t *testing.T, b []byte) Fields {
	t.Helper()
	var fs Fields
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("warc-fields line %q", line)
		}
		fs = append(fs, Field{k, v})
	}
	return fs
}

func checkRequest(t *testing.T, rec *Record, m *HTTPMessage, ex Exchange) {
	t.Helper()
	method := ex.Method
	if method == "" {
		method = "GET"
	}
	u, _ := url.Parse(ex.URL)
	wantLine := method + " " + u.RequestURI() + " HTTP/1.1"
	if m.StartLine != wantLine || m.Header.Get("Host") != u.Host {
		t.Errorf("request %q Host %q, want %q", m.StartLine, m.Header.Get("Host"), wantLine)
	}
	if m.Header.Get("User-Agent") != ex.RequestHeader.Get("User-Agent") || !bytes.Equal(m.Payload, ex.RequestBody) {
		t.Errorf("request %s: header %v body %q", ex.URL, m.Header, m.Payload)
	}
	if rec.Header.Get("WARC-Payload-Digest") != sha1b32(ex.RequestBody) || rec.Header.Get("Content-Type") != "application/http;msgtype=request" {
		t.Errorf("request %s: %v", ex.URL, rec.Header)
	}
}

func checkResponse(t *testing.T, rec *Record, m *HTTPMessage, ex Exchange) {
	t.Helper()
	reason := ex.Reason
	if reason == "" {
		reason = http.StatusText(ex.Status)
	}
	if m.Status != ex.Status || m.StartLine != fmt.Sprintf("HTTP/1.1 %d %s", ex.Status, reason) {
		t.Errorf("response %s: status line %q", ex.URL, m.StartLine)
	}
	body, err := m.Body()
	if err != nil || !bytes.Equal(body, ex.ResponseBody) {
		t.Errorf("response %s: body of %d bytes, sent %d (%v)", ex.URL, len(body), len(ex.ResponseBody), err)
	}
	if !slices.Equal(m.Header.Values("Set-Cookie"), ex.ResponseHeader.Values("Set-Cookie")) || m.Header.Get("Content-Type") != ex.ResponseHeader.Get("Content-Type") {
		t.Errorf("response %s: header %v", ex.URL, m.Header)
	}
	if rec.Header.Get("WARC-Payload-Digest") != sha1b32(ex.ResponseBody) || rec.Header.Get("Content-Type") != "application/http;msgtype=response" {
		t.Errorf("response %s: %v", ex.URL, rec.Header)
	}
	if trunc := rec.Header.Get("WARC-Truncated"); (trunc == "length") != ex.Truncated || (trunc != "" && trunc != "length") {
		t.Errorf("response %s: WARC-Truncated %q, truncated %v", ex.URL, trunc, ex.Truncated)
	}
}

// gzipMembers counts the gzip members of a file with the standard library
// alone.
func gzipMembers(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	n := 0
	for {
		if _, err := br.Peek(1); err == io.EOF {
			return n
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		if _, err := io.Copy(io.Discard, zr); err != nil {
			t.Fatal(err)
		}
		n++
	}
}

// TestTransferEncodingDropped: the body is recorded decoded, so a
// Transfer-Encoding left in the header would misdescribe it.
func TestTransferEncodingDropped(t *testing.T) {
	dir := t.TempDir()
	w, err := NewWriter(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ex := sampleExchange(5, nil)
	ex.ResponseHeader.Set("Transfer-Encoding", "chunked")
	if err := w.Record(context.Background(), ex); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, err := readAll(t, w.Files()[0])
	if err != nil {
		t.Fatal(err)
	}
	m, err := recs[2].HTTP()
	if err != nil {
		t.Fatal(err)
	}
	body, _ := m.Body()
	if m.Header.Get("Transfer-Encoding") != "" || !bytes.Equal(body, ex.ResponseBody) {
		t.Errorf("header %v, body %q", m.Header, body)
	}
}

// TestResumeNames: a second writer in the same directory continues the
// serials, so its files never collide with the first one's, even within
// the same second.
func TestResumeNames(t *testing.T) {
	dir := t.TempDir()
	now := func() time.Time { return t0 }
	var names []string
	for range 2 {
		w, err := NewWriter(Options{Dir: dir, Now: now, MaxFileSize: 1})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if err := w.Record(context.Background(), sampleExchange(i, nil)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		names = append(names, w.Files()...)
	}
	// MaxFileSize 1: every record but the first of a file starts a new one
	if len(names) != 12 {
		t.Fatalf("files %v", names)
	}
	seen := map[string]bool{}
	for i, name := range names {
		want := fmt.Sprintf("dwcrawl-20260301120000-%05d-", i+1)
		if !strings.HasPrefix(filepath.Base(name), want) || filepath.Dir(name) != dir || seen[name] {
			t.Errorf("file %d named %s, want %s…", i, name, want)
		}
		seen[name] = true
	}
}

func TestWriterErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		opt  Options
		want string
	}{
		{"no dir", Options{}, "no directory"},
		{"prefix with a slash", Options{Dir: dir, Prefix: "a/b"}, "not a path"},
		{"field name", Options{Dir: dir, Info: Info{Fields: []Field{{"bad name", "x"}}}}, `"bad name"`},
		{"field value", Options{Dir: dir, Info: Info{Fields: []Field{{"description", "a\r\nWARC-Type: x"}}}}, "description"},
		{"dir is a file", Options{Dir: filepath.Join(dir, "f", "x")}, "not a directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
			_, err := NewWriter(tt.opt)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}

	w, err := NewWriter(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	good := sampleExchange(0, nil)
	bad := func(f func(*Exchange)) Exchange {
		ex := sampleExchange(0, nil)
		f(&ex)
		return ex
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct {
		name string
		ctx  context.Context
		ex   Exchange
		want string
	}{
		{"no response", context.Background(), bad(func(e *Exchange) { e.Status = 0 }), "no response"},
		{"bad status", context.Background(), bad(func(e *Exchange) { e.Status = 1000 }), "bad status"},
		{"relative URL", context.Background(), bad(func(e *Exchange) { e.URL = "/page.html" }), "not an absolute URL"},
		{"bad IP", context.Background(), bad(func(e *Exchange) { e.RemoteIP = "localhost" }), "remote IP"},
		{"canceled", canceled, good, "context canceled"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := w.Record(tt.ctx, tt.ex)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
	// the writer is still usable after refusing exchanges
	if err := w.Record(context.Background(), good); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Record(context.Background(), good); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if w.Records() != 2 || len(w.Files()) != 1 {
		t.Errorf("%d records in %v", w.Records(), w.Files())
	}
}
