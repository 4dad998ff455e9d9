package warc

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/internal/shareddata/sharedtest"
)

// readAll reads every record of path, returning those read before an error.
func readAll(t testing.TB, path string) ([]*Record, error) {
	t.Helper()
	r, err := Open(path, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []*Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			if _, again := r.Next(); again != err {
				t.Errorf("the error is not sticky: %v, then %v", err, again)
			}
			return recs, err
		}
		recs = append(recs, rec)
	}
}

func countTypes(recs []*Record) map[string]int {
	m := map[string]int{}
	for _, r := range recs {
		m[r.Type()]++
	}
	return m
}

// TestSharedFiles reads the real WARC files of the shared data: sound files
// read whole with verified digests, broken ones stop with the error that
// names what is wrong.
func TestSharedFiles(t *testing.T) {
	dir := sharedtest.Path(t, "warc")
	tests := []struct {
		file     string
		types    map[string]int
		err      error  // nil: reads to the end
		problems []int  // indexes of the records expected to have problems
		mention  string // what the error message must say
	}{
		{file: "iana.warc.gz", types: map[string]int{"warcinfo": 1, "request": 171, "response": 48, "revisit": 123}},
		{file: "dupes.warc.gz", types: map[string]int{"warcinfo": 1, "request": 12, "response": 3, "revisit": 9}},
		{file: "post-test.warc.gz", types: map[string]int{"request": 3, "response": 3}},
		{file: "example.warc.gz", types: map[string]int{"warcinfo": 1, "request": 2, "response": 2, "revisit": 1}},
		{file: "example-wget-1-14.warc.gz", types: map[string]int{"warcinfo": 1, "request": 1, "response": 1, "resource": 3}},
		{file: "warcio-example-iana.org-chunked.warc", types: map[string]int{"warcinfo": 1, "request": 1, "response": 1}},
		// record 0's payload digest is not valid base32; the others use
		// base64, standard and URL-safe
		{file: "warcio-example-digest.warc", types: map[string]int{"request": 4}, problems: []int{0}},
		// compressed whole: one gzip member holds every record
		{file: "warcio-example-bad-non-chunked.warc.gz", types: map[string]int{}, err: ErrNotPerRecord, mention: "record 1 at offset 0"},
		// the response is shorter than its Content-Length: its digests fail
		// and the next record starts early
		{file: "warcio-example-trunc.warc", types: map[string]int{"warcinfo": 2, "response": 1}, err: ErrGarbage, problems: []int{2},
			mention: "after the response record http://example.com/ at offset 1197"},
		// a gzip member ends inside the record
		{file: "warcio-example-wrong-chunks.warc.gz", types: map[string]int{}, err: ErrTruncated, mention: "ends after 343 of its 1613 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			recs, err := readAll(t, path)
			if !errors.Is(err, tt.err) {
				t.Fatalf("error %v, want %v", err, tt.err)
			}
			if err != nil && (!strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.mention)) {
				t.Errorf("error %q does not name the file and %q", err, tt.mention)
			}
			if got := countTypes(recs); !equalCounts(got, tt.types) {
				t.Errorf("record types %v, want %v", got, tt.types)
			}
			want := map[int]bool{}
			for _, i := range tt.problems {
				want[i] = true
			}
			for i, rec := range recs {
				if (len(rec.Problems) > 0) != want[i] {
					t.Errorf("record %d (%s %s): problems %q", i, rec.Type(), rec.TargetURI(), rec.Problems)
				}
			}
		})
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestSharedHTTP parses the HTTP messages of the real captures.
func TestSharedHTTP(t *testing.T) {
	dir := sharedtest.Path(t, "warc")
	recs, err := readAll(t, filepath.Join(dir, "iana.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	html, responses := 0, 0
	for _, rec := range recs {
		if rec.Type() != "response" && rec.Type() != "request" {
			continue
		}
		m, err := rec.HTTP()
		if err != nil {
			t.Fatalf("%s %s: %v", rec.Type(), rec.TargetURI(), err)
		}
		if rec.Type() == "request" {
			if m.Status != 0 || !strings.HasPrefix(m.StartLine, "GET ") || m.Header.Get("Host") == "" {
				t.Errorf("request %s: %q %v", rec.TargetURI(), m.StartLine, m.Header)
			}
			continue
		}
		responses++
		if m.Status < 200 || m.Status > 399 {
			t.Errorf("response %s: status %d", rec.TargetURI(), m.Status)
		}
		body, err := m.Body()
		if err != nil {
			t.Fatalf("%s: %v", rec.TargetURI(), err)
		}
		if strings.HasPrefix(m.Header.Get("Content-Type"), "text/html") && m.Status == 200 {
			html++
			if !bytes.Contains(bytes.ToLower(body), []byte("</html>")) {
				t.Errorf("%s: body of %d bytes without </html>", rec.TargetURI(), len(body))
			}
		}
	}
	if responses != 48 || html == 0 {
		t.Errorf("%d responses (%d HTML pages), the capture has 48", responses, html)
	}

	// the chunked capture: Body removes the transfer coding
	recs, err = readAll(t, filepath.Join(dir, "warcio-example-iana.org-chunked.warc"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if rec.Type() != "response" {
			continue
		}
		m, err := rec.HTTP()
		if err != nil {
			t.Fatal(err)
		}
		body, err := m.Body()
		if err != nil {
			t.Fatal(err)
		}
		if m.Header.Get("Transfer-Encoding") != "chunked" || len(body) >= len(m.Payload) || !bytes.HasSuffix(bytes.TrimSpace(body), []byte("</html>")) {
			t.Errorf("chunked response: %d payload bytes, %d body bytes, ends %q", len(m.Payload), len(body), body[max(0, len(body)-20):])
		}
	}

	// the POST capture: request bodies are kept
	recs, err = readAll(t, filepath.Join(dir, "post-test.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	posts := 0
	for _, rec := range recs {
		if rec.Type() != "request" {
			continue
		}
		m, err := rec.HTTP()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(m.StartLine, "POST ") {
			posts++
			if len(m.Payload) == 0 {
				t.Errorf("POST %s without its body", rec.TargetURI())
			}
		}
	}
	if posts == 0 {
		t.Error("no POST request read")
	}
}

// TestSharedRevisits checks the revisit records against the responses they
// stand for, where the shared files hold them: dupes.warc.gz deduplicates
// against iana.warc.gz and itself; iana.warc.gz against itself and against
// an earlier https capture that is not among the files.
func TestSharedRevisits(t *testing.T) {
	dir := sharedtest.Path(t, "warc")
	iana, err := readAll(t, filepath.Join(dir, "iana.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	dupes, err := readAll(t, filepath.Join(dir, "dupes.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ uri, date string }
	responses := map[key]string{} // → payload digest
	for _, rec := range slices.Concat(iana, dupes) {
		if rec.Type() == "response" {
			responses[key{rec.TargetURI(), rec.Header.Get("WARC-Date")}] = rec.Header.Get("WARC-Payload-Digest")
		}
	}
	for name, recs := range map[string][]*Record{"iana": iana, "dupes": dupes} {
		n, resolved := 0, 0
		for _, rec := range recs {
			if rec.Type() != "revisit" {
				continue
			}
			n++
			k := key{rec.Header.Get("WARC-Refers-To-Target-URI"), rec.Header.Get("WARC-Refers-To-Date")}
			d, ok := responses[k]
			if !ok {
				continue
			}
			resolved++
			if d != rec.Header.Get("WARC-Payload-Digest") {
				t.Errorf("%s: revisit of %s: digest %s, the original's %s", name, rec.TargetURI(), rec.Header.Get("WARC-Payload-Digest"), d)
			}
			if !strings.Contains(rec.Header.Get("WARC-Profile"), "identical-payload-digest") {
				t.Errorf("%s: revisit profile %q", name, rec.Header.Get("WARC-Profile"))
			}
			if _, err := rec.HTTP(); err != nil {
				t.Errorf("%s: revisit of %s: %v", name, rec.TargetURI(), err)
			}
		}
		t.Logf("%s: %d revisits, %d of them refer to a response in the files", name, n, resolved)
		if resolved < n/2 {
			t.Errorf("%s: %d revisits, only %d refer to a response in the files", name, n, resolved)
		}
	}
}

// TestBrokenInput damages a file dwcrawl wrote in the ways a disk or a
// transfer does: each gives its error, none a panic or a hang.
func TestBrokenInput(t *testing.T) {
	good := writeSample(t, 3)
	tests := []struct {
		name   string
		damage func([]byte) []byte
		max    int64
		err    error
		text   string
	}{
		{"cut in the middle", func(b []byte) []byte { return b[:len(b)/2] }, 0, ErrTruncated, "gzip member ends early"},
		{"cut in a gzip header", func(b []byte) []byte { return b[:5] }, 0, ErrTruncated, ""},
		{"bit flipped", func(b []byte) []byte {
			c := bytes.Clone(b)
			c[len(c)-12] ^= 0x40 // in the last member's deflate data or CRC
			return c
		}, 0, nil, "gzip"},
		{"garbage before", func(b []byte) []byte { return append([]byte("<html>oops</html>"), b...) }, 0, ErrGarbage, "before the first record"},
		{"garbage after", func(b []byte) []byte { return append(bytes.Clone(b), "trailing"...) }, 0, ErrGarbage, ""},
		{"block over the limit", func(b []byte) []byte { return b }, 10, ErrTooLarge, "Content-Length"},
		{"not a WARC", func([]byte) []byte { return []byte("hello, world\n") }, 0, ErrGarbage, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(bytes.NewReader(tt.damage(good)), "damaged.warc.gz", ReaderOptions{MaxBlock: tt.max})
			var err error
			for i := 0; i < 100 && err == nil; i++ {
				_, err = r.Next()
			}
			if err == nil || err == io.EOF {
				t.Fatalf("read to the end: %v", err)
			}
			if tt.err != nil && !errors.Is(err, tt.err) {
				t.Errorf("error %v, want %v", err, tt.err)
			}
			if !strings.Contains(err.Error(), "damaged.warc.gz: record") || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("error %q lacks the file, the record or %q", err, tt.text)
			}
		})
	}
	// gzip bombs: a member inflating to megabytes of blank lines after its
	// record, or of header lines, stops at the limit
	bomb := func(head string, fill string, n int) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(head))
		zw.Write(bytes.Repeat([]byte(fill), n))
		zw.Close()
		return b.Bytes()
	}
	for name, tt := range map[string]struct {
		b   []byte
		err error
	}{
		"blank lines":  {bomb("WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: 1\r\n\r\nx\r\n\r\n", "\r\n", 1<<20), ErrGarbage},
		"header lines": {bomb("WARC/1.1\r\nWARC-Type: resource\r\n", "X-Filler: abcdefgh\r\n", 100_000), ErrTooLarge},
	} {
		r := NewReader(bytes.NewReader(tt.b), name, ReaderOptions{MaxBlock: 1 << 16})
		if _, err := r.Next(); !errors.Is(err, tt.err) {
			t.Errorf("%s bomb (%d bytes): %v, want %v", name, len(tt.b), err, tt.err)
		}
	}

	// an empty file has no records
	r := NewReader(bytes.NewReader(nil), "empty", ReaderOptions{})
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("empty file: %v", err)
	}
}

// writeSample writes n exchanges and returns the one file's bytes.
func writeSample(t testing.TB, n int) []byte {
	t.Helper()
	dir := t.TempDir()
	w, err := NewWriter(Options{Dir: dir, Info: Info{Software: "dwcrawl/test"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		ex := sampleExchange(i, nil)
		if err := w.Record(t.Context(), ex); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := w.Files()
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzReader feeds the reader arbitrary bytes: it must end with a record
// stream, io.EOF or an error, never a panic or a hang.
func FuzzReader(f *testing.F) {
	f.Add(writeSample(f, 2))
	f.Add([]byte("WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n"))
	f.Add([]byte("WARC/1.1\r\nContent-Length: 99999999999\r\n\r\n"))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("WARC/1.0\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\nWARC/1.0\r\n"))
	zw.Close()
	f.Add(gz.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewReader(bytes.NewReader(b), "fuzz", ReaderOptions{MaxBlock: 1 << 20})
		for i := 0; i <= len(b); i++ { // each record consumes at least one byte
			rec, err := r.Next()
			if err != nil {
				return
			}
			if rec.Type() == "response" {
				if m, err := rec.HTTP(); err == nil {
					m.Body()
				}
			}
		}
		t.Fatal("more records than bytes")
	})
}
