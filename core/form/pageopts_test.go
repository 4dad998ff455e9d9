package form

import "testing"

// TestPageOptions checks which forms the page-options rules take for
// options or navigation, and that search forms made only of choices, or
// with from/to boxes, stay out of them.
func TestPageOptions(t *testing.T) {
	const langs = `<option value=de>Deutsch</option><option value=en>English</option><option value=fr>Français</option><option value=pt_BR>Português</option>`
	const sections = `<option value=-1>Select Category</option><option value=2>Books (833)</option><option value=8>Conference papers (1,390)</option><option value=4>Journal articles (1,402)</option>`
	const makes = `<option>Audi</option><option>BMW</option><option>Volvo</option>`
	tests := []struct {
		name string
		doc  string
		want bool
	}{
		{"language selector", `<form action=/index.php><select name=lang>` + langs + `</select><input type=hidden name=token value=x></form>`, true},
		{"language options, unnamed by its words", `<form action=/><select name=l>` + langs + `</select><input type=submit value=Change></form>`, true},
		{"theme selector", `<form action=/><select name=styleid><option value=1>Default</option><option value=2>Wide</option></select></form>`, true},
		{"columns and grouping", `<form action=/issues><input type=hidden name=set_filter value=1><label>Selected columns <select name="c[]" multiple><option>Status</option><option>Subject</option></select></label><select name=group_by><option></option><option>Tracker</option></select><input type=checkbox name="t[]" value=hours> Spent time</form>`, true},
		{"export options", `<form action=/issues.csv><label><input type=radio name="c[]" value="">Selected columns</label><label><input type=radio name="c[]" value=all>All columns</label><select name=encoding><option>UTF-8</option><option>ISO-8859-1</option></select><input type=submit value=Export></form>`, true},
		{"tag filter beside toggles", `<form action=/index.php><select name=namespace><option>all</option><option>Talk</option></select><label><input type=checkbox name=invert>Invert selection</label><label>Tag filter: <input name=tagfilter></label><input type=submit value=Show></form>`, true},
		{"display bounds", `<form action=/index.php><label>Display pages starting at: <input name=from></label><label>Display pages ending at: <input name=to></label><select name=namespace><option>Main</option><option>Talk</option></select><label><input type=checkbox name=hideredirects>Hide redirects</label><input type=submit value=Go></form>`, true},
		{"category jump menu", `<form action=/><select name=cat>` + sections + `</select></form>`, true},

		{"language beside a query box", `<form action=/dict><input name=word><select name=lang>` + langs + `</select></form>`, false},
		{"category with a search button", `<form action=/><select name=cat>` + sections + `</select><input type=submit value=Search></form>`, false},
		{"car search by make and model", `<form action=/cars><select name=make>` + makes + `</select><select name=model><option>A4</option><option>X5</option></select><select name=year><option>2014</option></select><input type=submit value=Go></form>`, false},
		{"sort by alone", `<form action=/list><select name=sortBy><option>Price</option><option>Name</option></select></form>`, false},
		{"make with a sort order", `<form action=/cars><select name=make>` + makes + `</select><select name=model><option>A4</option></select><select name=sort><option>Price</option></select></form>`, false},
		{"flight from and to", `<form action=/flights>From: <input name=from> To: <input name=to><select name=adults><option>1</option><option>2</option></select><select name=class><option>Economy</option></select><input type=submit value=Go></form>`, false},
		{"filter box that reads as a query", `<form action=/list><label>Filter by keyword: <input name=filter></label><select name=type><option>a</option></select><select name=status><option>b</option></select></form>`, false},
		{"layout choices in a search form", `<form action=/search><select name=view><option>List</option><option>Grid</option></select><select name=make>` + makes + `</select></form>`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := pageOptions(analyze(parseForm(t, tc.doc))); (got != "") != tc.want {
				t.Errorf("pageOptions = %q, want options %v", got, tc.want)
			}
		})
	}
}

// TestLanguageSelect checks the language-options test against a country
// select, whose upper-case codes and country names are not languages.
func TestLanguageSelect(t *testing.T) {
	lang := parseForm(t, `<form><select name=x><option value=sq>Shqip - Albanian</option><option value=ar>العربية - Arabic</option><option value=de>Deutsch - German</option></select></form>`)
	country := parseForm(t, `<form><select name=x><option value=DE>Germany</option><option value=FR>France</option><option value=IT>Italy</option></select></form>`)
	if !languageSelect(&lang.Fields[0]) {
		t.Error("language select not recognised")
	}
	if languageSelect(&country.Fields[0]) {
		t.Error("country select taken for languages")
	}
}
