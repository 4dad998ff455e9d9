package page

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The golden files hold what Parse returned when they were written (first
// with the parser of commit 842aa28, before the one-pass rewrite), so that
// changes made for speed cannot change a page: -update rewrites them, which
// is right only for a change of output made on purpose.
var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

const (
	goldenDir    = "testdata/golden"
	goldenSeed   = 19   // seed of the generated documents
	goldenRandom = 1500 // how many
)

// goldenDoc is one document of the golden set.
type goldenDoc struct {
	name, contentType, base string
	body                    []byte
}

// goldenDocs lists the fixtures, the fuzz seed corpus and the simweb pages
// under testdata (testdata/simweb: 40 pages fetched breadth-first from the
// auto, book, job and movie seeds of simweb.DefaultConfig with seed 19, no
// faults but malformed HTML on a quarter of the pages; urls.txt gives each
// page's URL).
func goldenDocs(t *testing.T) []goldenDoc {
	t.Helper()
	var docs []goldenDoc
	names, _ := filepath.Glob(filepath.Join("testdata", "*.html"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, goldenDoc{name: filepath.Base(n), base: fixtureURL, body: b})
	}
	fuzz, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzParse", "*"))
	for _, n := range fuzz {
		body, ct := readFuzzSeed(t, n)
		docs = append(docs, goldenDoc{name: "fuzz/" + filepath.Base(n), contentType: ct, base: fixtureURL, body: body})
	}
	f, err := os.Open(filepath.Join("testdata", "simweb", "urls.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, u, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			t.Fatalf("testdata/simweb/urls.txt: bad line %q", sc.Text())
		}
		b, err := os.ReadFile(filepath.Join("testdata", "simweb", name))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, goldenDoc{name: "simweb/" + name, contentType: "text/html; charset=utf-8", base: u, body: b})
	}
	return docs
}

// readFuzzSeed reads a "go test fuzz v1" file of FuzzParse: a []byte body
// and a string content type.
func readFuzzSeed(t *testing.T, path string) ([]byte, string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 3 {
		t.Fatalf("%s: want 3 lines, got %d", path, len(lines))
	}
	unq := func(line, prefix string) string {
		s, ok := strings.CutPrefix(line, prefix+"(")
		if !ok || !strings.HasSuffix(s, ")") {
			t.Fatalf("%s: bad line %q", path, line)
		}
		v, err := strconv.Unquote(strings.TrimSuffix(s, ")"))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return v
	}
	return []byte(unq(lines[1], "[]byte")), unq(lines[2], "string")
}

// randomDoc builds a document of tags that exercise the form rules (nested
// and unclosed forms, tables, selects, labels, noscript, foreign content,
// form= attributes), links, images and text.
func randomDoc(rng *rand.Rand) []byte {
	pieces := []string{
		"<form>", "<form id=f1 action=/s method=post>", "<form action='?q=1' enctype=multipart/form-data>",
		"</form>", "<table>", "</table>", "<tr><td>", "</td></tr>", "<div>", "</div>", "<p>", "</p>",
		"<input name=q>", "<input type=checkbox name=c checked>", "<input type=radio name=r value=1>",
		"<input type=submit value=Go>", "<input type=image alt=Find>", "<input type=hidden name=h value=x>",
		"<input form=f1 name=late>", "<input id=n name=n placeholder='Your name'>", "<input size=20 maxlength=5 required>",
		"<select name=s>", "<select multiple name=m>", "<option value=a>A", "<option selected>B</option>", "</select>",
		"<textarea name=t>", "</textarea>", "<button>", "<button type=reset>", "</button>", "<img alt='Logo pic'>",
		"<label>", "<label for=n>", "</label>", "Name:", " Search * ", "words here", "more text ", "\n\t",
		"<a href=/x>", "<a href='http://other.example/p?a=1#f' rel=nofollow>", "<a href=#top>", "<a href=javascript:x>",
		"<a>", "</a>", "<area href=/m alt=Map>", "<noscript>", "</noscript>", "<template>", "</template>",
		"<svg>", "</svg>", "<math><mi>x</mi>", "</math>", "<script>var x = '<form>';</script>", "<style>p{}</style>",
		"<title>T  one</title>", "<base href=/base/>", "<meta name=robots content=nofollow>", "<span>", "</span>",
		"<b>", "</b>", "<datalist><option value=d>D</datalist>", "<keygen>", "<FORM Action=/U>", "<INPUT NAME=U>",
		"&amp; &lt;", "caf\u00e9 ", "<br>", "<li>", "<ul>", "</ul>", "<iframe>x</iframe>", "<!-- <form> -->",
	}
	var b bytes.Buffer
	for n := 5 + rng.IntN(60); n > 0; n-- {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.Bytes()
}

// parseJSON is the JSON of Parse's result, or of its error.
func parseJSON(t *testing.T, d goldenDoc) []byte {
	t.Helper()
	var base *url.URL
	if d.base != "" {
		var err error
		if base, err = url.Parse(d.base); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Parse(d.body, d.contentType, base)
	var v any = p
	if err != nil {
		v = map[string]string{"error": err.Error()}
	}
	out, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	// Where the form-marking pass misreads a hostile document (foreign
	// content it ends at another point than the tree builder), its marks
	// reach the text; their suffix is random per process.
	out = bytes.ReplaceAll(out, []byte(markSuffix), []byte("MARK"))
	return append(out, '\n')
}

func shortHash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:12])
}

// checkGolden compares got with the golden file name, or writes it with
// -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: Parse output differs from the golden file:\n%s", path, firstDiff(want, got))
	}
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  golden: %s\n  now:    %s", i+1, x, y)
		}
	}
	return "(same lines)"
}

// TestParseGolden parses the fixtures, the fuzz seeds and the simweb pages
// under testdata and compares each Page, as JSON, with its golden file.
func TestParseGolden(t *testing.T) {
	for _, d := range goldenDocs(t) {
		checkGolden(t, d.name+".json", parseJSON(t, d))
	}
}

// TestParseGoldenRandom compares the pages parsed from goldenRandom
// generated documents (seed goldenSeed) with their recorded hashes.
func TestParseGoldenRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(goldenSeed, goldenSeed))
	var b strings.Builder
	for i := range goldenRandom {
		d := goldenDoc{name: strconv.Itoa(i), base: fixtureURL, body: randomDoc(rng)}
		fmt.Fprintf(&b, "%d %s\n", i, shortHash(parseJSON(t, d)))
	}
	t.Logf("seed %d, %d documents", goldenSeed, goldenRandom)
	checkGolden(t, "random.txt", []byte(b.String()))
}

// TestParseGoldenFormasaurus compares the pages parsed from the shared
// Formasaurus corpus with their recorded hashes (skipped without the
// shared data; only hashes are kept here, not the third-party pages).
func TestParseGoldenFormasaurus(t *testing.T) {
	pages := loadFormasaurus(t)
	sort.Slice(pages, func(i, j int) bool { return pages[i].Name < pages[j].Name })
	var b strings.Builder
	for _, pg := range pages {
		d := goldenDoc{name: pg.Name, base: pg.URL.String(), body: pg.Body}
		fmt.Fprintf(&b, "%s %s\n", pg.Name, shortHash(parseJSON(t, d)))
	}
	checkGolden(t, "formasaurus.txt", []byte(b.String()))
}
