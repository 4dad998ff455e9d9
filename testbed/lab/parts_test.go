package lab

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestParseForms(t *testing.T) {
	const page = `<html><head><base href="http://x.lab.test/dir/"></head><body>
<form id="searchform" action="search"><input type="search" name="q"><input type="hidden" name="t" value="all">
<select name="qt"><option value="grep">log</option><option value="author" selected>author</option></select>
<input type="submit" value="Go"></form>
<form method="post" action="http://x.lab.test/login"><input name="u"><input type="password" name="p"><textarea name="note">hi</textarea>
<button name="go" value="1">Log in</button></form>
<form><input name="k"></form>
</body></html>`
	base, _ := url.Parse("http://x.lab.test/page")
	forms, err := ParseForms(base, strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if len(forms) != 3 {
		t.Fatalf("%d forms, want 3", len(forms))
	}
	f := forms[0]
	if f.ID != "searchform" || f.Method != "GET" || f.Action != "http://x.lab.test/dir/search" {
		t.Errorf("form 0: %+v", f)
	}
	if got := fieldNames(f); !slices.Equal(got, []string{"q", "t", "qt"}) {
		t.Errorf("form 0 fields %v (unnamed submit left out)", got)
	}
	if f.Fields[2].Value != "author" || !slices.Equal(f.Fields[2].Options, []string{"grep", "author"}) {
		t.Errorf("select: %+v", f.Fields[2])
	}
	if f := forms[1]; f.Method != "POST" || f.Action != "http://x.lab.test/login" ||
		!slices.Equal(fieldNames(f), []string{"u", "p", "note", "go"}) || f.Fields[0].Type != "text" || f.Fields[2].Value != "hi" {
		t.Errorf("form 1: %+v", f)
	}
	if f := forms[2]; f.Action != "http://x.lab.test/dir/" || f.Index != 2 {
		t.Errorf("form without action submits to the base: %+v", f)
	}
}

func fieldNames(f Form) []string {
	var out []string
	for _, x := range f.Fields {
		out = append(out, x.Name)
	}
	return out
}

func TestLabels(t *testing.T) {
	field := func(name, typ string) Field { return Field{Name: name, Type: typ} }
	tests := []struct {
		name string
		app  app
		form Form
		want formLabel
	}{
		{"mediawiki search", &mediawiki{}, Form{ID: "searchform", Action: "http://wiki.lab.test/index.php", Method: "GET",
			Fields: []Field{field("search", "search"), field("title", "hidden")}},
			formLabel{Kind: "search", Backend: "wiki.lab.test/movies", QueryField: "search", PageParam: "offset", PageSize: 20}},
		{"mediawiki account", &mediawiki{}, Form{Method: "POST", Fields: []Field{field("wpName", "text"), field("wpPassword", "password"), field("retype", "password")}},
			formLabel{Kind: "registration"}},
		{"mediawiki login", &mediawiki{}, Form{Method: "POST", Fields: []Field{field("wpName", "text"), field("wpPassword", "password")}},
			formLabel{Kind: "login"}},
		{"wordpress comment", &wordpress{}, Form{Method: "POST", Fields: []Field{field("comment", "textarea"), field("comment_post_ID", "hidden")}},
			formLabel{Kind: "comment"}},
		{"wordpress hidden s is no search box", &wordpress{}, Form{Method: "GET", Fields: []Field{field("s", "hidden")}},
			formLabel{Kind: "other"}},
		{"dokuwiki register", &dokuwiki{}, Form{Method: "POST", Fields: []Field{field("login", "text"), field("email", "text")}},
			formLabel{Kind: "registration"}},
		{"cgit log search", &cgit{}, Form{Action: "http://git.lab.test/cars/log/?qt=grep", Method: "GET", Fields: []Field{field("qt", "select"), field("q", "search")}},
			formLabel{Kind: "search", Backend: "git.lab.test/cars", QueryField: "q", PageParam: "ofs", PageSize: 25}},
		{"cgit branch switch carrying a search", &cgit{}, Form{Method: "GET", Fields: []Field{field("qt", "hidden"), field("q", "hidden"), field("h", "select")}},
			formLabel{Kind: "navigation"}},
		{"cgit repository filter", &cgit{}, Form{Action: "http://git.lab.test/", Method: "GET", Fields: []Field{field("q", "search")}},
			formLabel{Kind: "search", Backend: "git.lab.test/repositories", QueryField: "q"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.app.label(&tt.form); got != tt.want {
				t.Errorf("label = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{
		"the land girls": "The land girls", "Star Wars: Episode I": "", "  Up  ": "Up", "[Rec]": "", "1776": "1776",
	} {
		if got := mwTitle(in); got != want {
			t.Errorf("mwTitle(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"a cappella": "a_cappella", "C-clef": "c_clef", "do-re-mi!": "do_re_mi", "é": ""} {
		if got := dwID(in); got != want {
			t.Errorf("dwID(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Words("Don't Look Up: 2 x-ray Café"); !slices.Equal(got, []string{"don't", "look", "ray"}) {
		t.Errorf("Words = %q", got)
	}
}

func TestMissingPackage(t *testing.T) {
	err := checkNeeds([]need{{"/usr/bin", "coreutils"}, {"/nonexistent/dwcrawl-lab/*.so", "php-nothing"}})
	var me *MissingError
	if !errors.As(err, &me) || me.Package != "php-nothing" || !strings.Contains(err.Error(), "install.sh") {
		t.Fatalf("err = %v, want a MissingError naming php-nothing", err)
	}
}

func TestLinkKeys(t *testing.T) {
	rec := linkKeys("/index.php?title=Film%27s_End")
	link := linkKeys("http://wiki.lab.test:8080/index.php?title=Film's_End")
	if len(rec) != 1 || !slices.Contains(link, rec[0]) {
		t.Errorf("record keys %q not among link keys %q", rec, link)
	}
	dw := linkKeys("/doku.php?id=music%3Atempo&s[]=tempo")
	if !slices.Contains(dw, linkKeys("/doku.php?id=music:tempo")[0]) {
		t.Errorf("DokuWiki result link keys %q", dw)
	}
}

func TestPick(t *testing.T) {
	var recs []Record
	for i := range 10 {
		recs = append(recs, Record{ID: string(rune('a' + i))})
	}
	got := pick(recs, 2)
	if len(got) != 2 || got[0].ID != "c" || got[1].ID != "h" {
		t.Errorf("pick = %v", got)
	}
}
