package page

import "regexp"

// queryWord matches the names and labels of a form's keyword box.
var queryWord = regexp.MustCompile(`(?i)(^|[^a-z])(q|qs|query|search|keywords?|kw|terms?|text|find|words?|s)([^a-z]|$)`)

// TextBox reports whether the field takes typed text: a textarea or a
// text or search input.
func (fl Field) TextBox() bool {
	switch fl.Tag {
	case "textarea":
		return true
	case "input":
		switch fl.Type {
		case "", "text", "search":
			return true
		}
	}
	return false
}

// QueryBox returns the index of the keyword box among a form's fields: the
// named, enabled text box whose name, id, label or placeholder reads like
// a query box (a search input first), else the first text box; -1 when
// there is none. Probing and surfacing type their queries into it.
func QueryBox(fields []Field) int {
	box, score := -1, -1
	for i, fl := range fields {
		if fl.Name == "" || fl.Disabled || !fl.TextBox() {
			continue
		}
		sc := 1
		if queryWord.MatchString(fl.Name) || queryWord.MatchString(fl.ID) || queryWord.MatchString(fl.Label) || queryWord.MatchString(fl.Placeholder) {
			sc = 3
		}
		if fl.Type == "search" {
			sc++
		}
		if sc > score {
			box, score = i, sc
		}
	}
	return box
}
