package page

import (
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const fixtureURL = "http://example.com/a/page.html"

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func parseFixture(t *testing.T, name, contentType, base string) *Page {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var u *url.URL
	if base != "" {
		u = mustURL(t, base)
	}
	p, err := Parse(body, contentType, u)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return p
}

// fieldNames lists a form's field names in order.
func fieldNames(f Form) []string {
	out := make([]string, 0, len(f.Fields))
	for _, fd := range f.Fields {
		out = append(out, fd.Name)
	}
	return out
}

func field(t *testing.T, f Form, name string) Field {
	t.Helper()
	for _, fd := range f.Fields {
		if fd.Name == name {
			return fd
		}
	}
	t.Fatalf("form %d has no field %q (fields %v)", f.Index, name, fieldNames(f))
	return Field{}
}

func TestNestedForms(t *testing.T) {
	p := parseFixture(t, "nested.html", "", fixtureURL)
	want := []struct {
		id, action, method string
		fields             []string
	}{
		// A <form> inside an open form element starts a new form; the
		// enclosing form keeps the controls of the nested one.
		{"outer", "http://example.com/outer", "GET", []string{"a", "b", "c"}},
		{"inner", "http://example.com/inner", "POST", []string{"b"}},
		// A form that is still empty when the next starts ends there.
		{"flat1", "http://example.com/f1", "GET", []string{}},
		{"flat2", "http://example.com/f2", "GET", []string{"d"}},
		// </form> inside a select still ends the form and the next starts.
		{"sel", fixtureURL, "GET", []string{"s"}},
		{"after-select", fixtureURL, "GET", []string{"e"}},
	}
	if len(p.Forms) != len(want) {
		t.Fatalf("got %d forms, want %d: %+v", len(p.Forms), len(want), p.Forms)
	}
	for i, w := range want {
		f := p.Forms[i]
		if f.Index != i || f.ID != w.id || f.Action != w.action || f.Method != w.method {
			t.Errorf("form %d = {%d %q %q %q}, want {%d %q %q %q}", i, f.Index, f.ID, f.Action, f.Method, i, w.id, w.action, w.method)
		}
		if got := fieldNames(f); !reflect.DeepEqual(got, w.fields) {
			t.Errorf("form %s fields = %v, want %v", w.id, got, w.fields)
		}
	}
}

func TestUnclosedForms(t *testing.T) {
	p := parseFixture(t, "unclosed.html", "", fixtureURL)
	if len(p.Forms) != 2 {
		t.Fatalf("got %d forms, want 2", len(p.Forms))
	}
	// A form opened directly in a table is empty in the tree; the form
	// element pointer gives it the controls of the rows.
	f := p.Forms[0]
	if got := fieldNames(f); !reflect.DeepEqual(got, []string{"q", ""}) {
		t.Errorf("table form fields = %v", got)
	}
	if got := field(t, f, "q").Label; got != "Keywords" {
		t.Errorf("q label = %q, want Keywords (nearby text)", got)
	}
	if !reflect.DeepEqual(f.Submits, []string{"Go"}) {
		t.Errorf("table form submits = %q", f.Submits)
	}
	if f.Text != "Keywords" || f.Context != "Find a used car near you today" {
		t.Errorf("table form text %q context %q", f.Text, f.Context)
	}
	if f.Action != "http://example.com/a/search.php" || f.Enctype != "application/x-www-form-urlencoded" {
		t.Errorf("table form action %q enctype %q", f.Action, f.Enctype)
	}
	// A form closed early by </div> still owns the controls after it.
	f = p.Forms[1]
	if got := fieldNames(f); !reflect.DeepEqual(got, []string{"user", "pw", ""}) {
		t.Errorf("unclosed form fields = %v", got)
	}
	if f.ID != "login" || f.Method != "POST" || f.Action != "http://example.com/login" {
		t.Errorf("unclosed form = %+v", f)
	}
	if got := []string{field(t, f, "user").Label, field(t, f, "pw").Label}; !reflect.DeepEqual(got, []string{"User name", "Password"}) {
		t.Errorf("labels = %q", got)
	}
	if !reflect.DeepEqual(f.Submits, []string{"Log in"}) || f.Text != "User name Password Log in" {
		t.Errorf("submits %q text %q", f.Submits, f.Text)
	}
	if b := f.Fields[2]; b.Tag != "button" || b.Type != "submit" {
		t.Errorf("button field = %+v", b)
	}
}

func TestLabelsAndControls(t *testing.T) {
	p := parseFixture(t, "labels.html", "", fixtureURL)
	if len(p.Forms) != 1 {
		t.Fatalf("got %d forms, want 1", len(p.Forms))
	}
	f := p.Forms[0]
	wantNames := []string{"q", "cat", "min", "new", "r", "color", "size", "t", "notes", "", "", "", "", "w", "outside", "multi"}
	if got := fieldNames(f); !reflect.DeepEqual(got, wantNames) {
		t.Fatalf("fields = %q,\nwant %q", got, wantNames)
	}
	tests := []struct {
		i                      int
		tag, typ, label, value string
	}{
		{0, "input", "text", "Search for", ""},       // label[for]
		{1, "select", "select-one", "Category", "b"}, // wrapping label, selected option
		{2, "input", "text", "Min price", "10"},      // nearby preceding text
		{3, "input", "checkbox", "New only", "on"},   // text after a checkbox
		{4, "input", "radio", "Exact", "x"},
		{5, "input", "text", "Colour", ""}, // aria-label
		{6, "input", "text", "Size", ""},   // placeholder
		{7, "input", "hidden", "", "1"},
		{8, "textarea", "textarea", "", "Hello\nworld"},
		{9, "input", "image", "", ""},
		{10, "input", "submit", "", ""},
		{11, "button", "button", "", ""},
		{12, "input", "reset", "", "Reset"},
		{13, "input", "text", "", ""}, // unknown type
		{14, "input", "text", "", ""}, // form="f", after the form
		{15, "select", "select-multiple", "", ""},
	}
	for _, tc := range tests {
		fd := f.Fields[tc.i]
		if fd.Tag != tc.tag || fd.Type != tc.typ || fd.Label != tc.label || fd.Value != tc.value {
			t.Errorf("field %d = {%q %q %q %q}, want {%q %q %q %q}", tc.i, fd.Tag, fd.Type, fd.Label, fd.Value, tc.tag, tc.typ, tc.label, tc.value)
		}
	}
	if q := f.Fields[0]; !q.Required || q.Placeholder != "keywords" || q.ID != "q" {
		t.Errorf("q = %+v", q)
	}
	if !f.Fields[3].Checked || f.Fields[4].Checked {
		t.Errorf("checked: new %v r %v", f.Fields[3].Checked, f.Fields[4].Checked)
	}
	wantOpts := []Option{{"", "Any", false}, {"b", "Books", true}, {"Music CDs", "Music CDs", false}}
	if got := f.Fields[1].Options; !reflect.DeepEqual(got, wantOpts) {
		t.Errorf("cat options = %+v", got)
	}
	if got := f.Fields[15].Options; !reflect.DeepEqual(got, []Option{{"a", "a", false}, {"b", "b", false}}) {
		t.Errorf("multi options = %+v", got)
	}
	if !reflect.DeepEqual(f.Submits, []string{"Find", "Submit", "Clear"}) {
		t.Errorf("submits = %q", f.Submits)
	}
	if f.Class != "search big" || f.ID != "f" || f.Action != "http://example.com/s" {
		t.Errorf("form attrs = %q %q %q", f.Class, f.ID, f.Action)
	}
	if want := "Search for: Category Min price New only Exact Hello world"; f.Text != want {
		t.Errorf("form text = %q, want %q", f.Text, want)
	}
}

func TestLinksAndBase(t *testing.T) {
	p := parseFixture(t, "links.html", "", "http://WWW.example.com/start/index.html#frag")
	if p.URL != "http://www.example.com/start/index.html" || p.Base != "http://cdn.example.org/dir/" {
		t.Errorf("URL %q Base %q", p.URL, p.Base)
	}
	if p.Title != "Base test" {
		t.Errorf("Title = %q", p.Title)
	}
	want := []Link{
		{"http://cdn.example.org/dir/page.html", "Page one",
			"two three four five six seven eight nine ten eleven", "after one two Abs JS Mail Top", false},
		{"http://cdn.example.org/abs?a=1&b=2", "Abs",
			"seven eight nine ten eleven Page one after one two", "JS Mail Top", true},
		{"http://other.example/", "Other logo",
			"eleven Page one after one two Abs JS Mail Top", "", false},
		{"http://cdn.example.org/up.html", "Up",
			"eleven Page one after one two Abs JS Mail Top", "", false},
		{"http://cdn.example.org/area", "Area link",
			"eleven Page one after one two Abs JS Mail Top", "", false},
	}
	if !reflect.DeepEqual(p.Links, want) {
		t.Errorf("links:\n got %+v\nwant %+v", p.Links, want)
	}
	if len(p.Forms) != 2 {
		t.Fatalf("got %d forms", len(p.Forms))
	}
	// An empty action is the document's URL, not the base URL.
	if p.Forms[0].Action != "http://www.example.com/start/index.html" || p.Forms[1].Action != "http://cdn.example.org/dir/find" {
		t.Errorf("actions %q %q", p.Forms[0].Action, p.Forms[1].Action)
	}
}

func TestTextAndRobots(t *testing.T) {
	p := parseFixture(t, "text.html", "", "http://example.com/")
	if want := "Hello bigword here one two link drawn"; p.Text != want {
		t.Errorf("Text = %q, want %q", p.Text, want)
	}
	if p.Title != "" {
		t.Errorf("Title = %q (an SVG title is not the page title)", p.Title)
	}
	if len(p.Links) != 1 || !p.Links[0].NoFollow || p.Links[0].URL != "http://example.com/l" {
		t.Errorf("links = %+v (robots nofollow)", p.Links)
	}
	// Scripting is off: the form in <noscript> is a form; the one in the
	// script string is not.
	if len(p.Forms) != 1 || p.Forms[0].Action != "http://example.com/ns" || !reflect.DeepEqual(fieldNames(p.Forms[0]), []string{"x"}) {
		t.Errorf("forms = %+v", p.Forms)
	}
}

func TestCharset(t *testing.T) {
	latin1, err := os.ReadFile(filepath.Join("testdata", "latin1.html"))
	if err != nil {
		t.Fatal(err)
	}
	noMeta := []byte("<title>Caf\xe9 cr\xe8me</title><p>D\xe9j\xe0 vu \xa9</p>")
	utf8Doc := []byte("<title>Café crème</title><p>Déjà vu ©</p>")
	tests := []struct {
		name        string
		body        []byte
		contentType string
		title, text string
	}{
		{"meta http-equiv latin1", latin1, "", "Café crème", "Déjà vu ©"},
		{"header beats meta", latin1, "text/html; charset=windows-1252", "Café crème", "Déjà vu ©"},
		{"header latin1", noMeta, "text/html; charset=ISO-8859-1", "Café crème", "Déjà vu ©"},
		{"sniff: invalid UTF-8 is windows-1252", noMeta, "", "Café crème", "Déjà vu ©"},
		{"sniff: valid UTF-8", utf8Doc, "text/html", "Café crème", "Déjà vu ©"},
		{"valid UTF-8 beats a Latin-1 header", utf8Doc, "text/html; charset=iso-8859-1", "Café crème", "Déjà vu ©"},
		{"valid UTF-8 beats a windows-1251 meta", append([]byte("<meta charset=windows-1251>"), utf8Doc...), "", "Café crème", "Déjà vu ©"},
		{"UTF-8 BOM", append([]byte("\xEF\xBB\xBF"), utf8Doc...), "text/html; charset=iso-8859-1", "Café crème", "Déjà vu ©"},
		{"meta charset", []byte("<meta charset=koi8-r><title>\xf0\xd2\xc9\xd7\xc5\xd4</title>"), "", "Привет", ""},
		{"UTF-16LE BOM", utf16le("<title>Ünï</title><p>x</p>"), "", "Ünï", "x"},
		{"NUL ends the document", []byte("<p>kept</p>\x00<p>dropped</p><form></form>"), "", "", "kept"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.body, tc.contentType, nil)
			if err != nil {
				t.Fatal(err)
			}
			if p.Title != tc.title || p.Text != tc.text {
				t.Errorf("title %q text %q, want %q %q", p.Title, p.Text, tc.title, tc.text)
			}
		})
	}
	p, err := Parse(latin1, "", mustURL(t, "http://example.com/"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Forms) != 1 || p.Forms[0].Action != "http://example.com/r%C3%A9sum%C3%A9.php" || p.Forms[0].Fields[0].Placeholder != "résumé" {
		t.Errorf("latin1 form = %+v", p.Forms)
	}
}

func utf16le(s string) []byte {
	b := []byte{0xFF, 0xFE}
	for _, r := range s {
		b = append(b, byte(r), byte(r>>8))
	}
	return b
}

func TestParseReader(t *testing.T) {
	p, err := ParseReader(strings.NewReader("<title>T\xff</title><a href='x'>X</a>"), mustURL(t, "https://example.com/d/"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "T\uFFFD" || len(p.Links) != 1 || p.Links[0].URL != "https://example.com/d/x" {
		t.Errorf("page = %+v", p)
	}
}

func TestTextWindows(t *testing.T) {
	const text = "one two three four five"
	tests := []struct {
		name      string
		got, want string
	}{
		{"last 2 at end", lastWords(text, len(text), 2), "four five"},
		{"last 2 before space", lastWords(text, 8, 2), "one two"},
		{"last more than there are", lastWords(text, 7, 10), "one two"},
		{"last at 0", lastWords(text, 0, 3), ""},
		{"first 2", firstWords(text, 0, 2), "one two"},
		{"first from space", firstWords(text, 7, 2), "three four"},
		{"first past end", firstWords(text, len(text), 2), ""},
		{"collapse", collapse(" a \n\t b\u00a0c  "), "a b c"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

func TestMarkFormsKeepsInput(t *testing.T) {
	// The tokenizer's raw tokens must cover the input exactly, or the
	// insertions land in the wrong place.
	inputs := []string{
		"<form><input></form>",
		"<FORM ACTION=x><Input name=a><form><select><option>1</form>",
		"<form><textarea><form></textarea><script>'<form>'</script><!-- <form> --><svg><style><form></style></svg>",
		"<form><div",
		"<form",
		"<form><noscript><input name=n></noscript><plaintext><form>",
	}
	for _, in := range inputs {
		if _, ok := formInsertions([]byte(in)); !ok {
			t.Errorf("formInsertions(%q): offsets do not add up", in)
		}
	}
}

// TestHostileInputs checks that inputs built to make the extraction
// quadratic stay bounded: text windows cut long words, a control belongs to
// at most maxOwners forms, and too deep a tree is an error, not a panic.
func TestHostileInputs(t *testing.T) {
	base := mustURL(t, "http://example.com/")
	long := strings.Repeat("a", 1<<20) + strings.Repeat("<a href=x></a>", 5000)
	p, err := Parse([]byte(long), "", base)
	if err != nil || len(p.Links) != 5000 {
		t.Fatalf("long word: %d links, %v", len(p.Links), err)
	}
	if b := p.Links[0].Before; len(b) > LinkContextWords*maxWordBytes || len(b) == 0 {
		t.Errorf("Before of a huge word has %d bytes", len(b))
	}

	nested := strings.Repeat("<div><form>", 200) + strings.Repeat("<input>", 1000)
	p, err = Parse([]byte(nested), "", base)
	if err != nil || len(p.Forms) != 200 {
		t.Fatalf("nested: %d forms, %v", len(p.Forms), err)
	}
	total := 0
	for _, f := range p.Forms {
		total += len(f.Fields)
	}
	if total != 1000*maxOwners {
		t.Errorf("nested forms hold %d fields, want %d", total, 1000*maxOwners)
	}

	if _, err := Parse([]byte(strings.Repeat("<div>", 600)), "", base); err == nil {
		t.Errorf("600 nested divs: want an error from the tree builder")
	}
}

// TestBoxSizesAndLinkText checks the size and maxlength of
// controls and the text of the links inside each form (and only those).
func TestBoxSizesAndLinkText(t *testing.T) {
	const doc = `<a href="/before">Before</a>
<form action="/timeline"><a href="/adv">Advanced</a> <a href="/search">Search</a>
Max:<input name=n size=4 maxlength="4"> <input name=q size=" 40 " maxlength=x>
<select name=y><option>All</option></select></form>
<a href="/between">Between</a>
<form action="/s"><input name=s><input type=submit value=Search></form>`
	p, err := Parse([]byte(doc), "text/html", mustURL(t, fixtureURL))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Forms) != 2 {
		t.Fatalf("got %d forms, want 2", len(p.Forms))
	}
	f := p.Forms[0]
	if got := f.LinkText; got != "Advanced Search" {
		t.Errorf("form 0 link text = %q, want %q", got, "Advanced Search")
	}
	if got := p.Forms[1].LinkText; got != "" {
		t.Errorf("form 1 link text = %q, want none", got)
	}
	tests := []struct {
		name            string
		size, maxLength int
	}{
		{"n", 4, 4},
		{"q", 40, 0}, // a maxlength that is not a number is none
		{"y", 0, 0},
	}
	for _, tc := range tests {
		fd := field(t, f, tc.name)
		if fd.Size != tc.size || fd.MaxLength != tc.maxLength {
			t.Errorf("%s: size %d maxlength %d, want %d %d", tc.name, fd.Size, fd.MaxLength, tc.size, tc.maxLength)
		}
	}
}
