package surface

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/store"
)

// queryBox matches the names and labels of a form's keyword box.
var queryBox = regexp.MustCompile(`(?i)(^|[^a-z])(q|qs|query|search|keywords?|kw|terms?|text|find|words?|s)([^a-z]|$)`)

// FormVars returns the variables of the keyword/htmlform plugin that drive
// a searchable form the crawl discovered: its action and method, the main
// text box (a text or search input, or a textarea, whose name or label
// reads like a query box, else the first one) and the other controls at
// their default values.
func FormVars(f store.Form) (map[string]string, error) {
	if f.Action == "" {
		return nil, fmt.Errorf("surface: form %s has no action", f.ID)
	}
	var fields []page.Field
	if len(f.Fields) > 0 {
		if err := json.Unmarshal(f.Fields, &fields); err != nil {
			return nil, fmt.Errorf("surface: form %s fields: %w", f.ID, err)
		}
	}
	box, score := -1, -1
	for i, fl := range fields {
		if fl.Name == "" || !textBox(fl) {
			continue
		}
		sc := 1
		if queryBox.MatchString(fl.Name) || queryBox.MatchString(fl.ID) || queryBox.MatchString(fl.Label) || queryBox.MatchString(fl.Placeholder) {
			sc = 3
		}
		if fl.Type == "search" {
			sc++
		}
		if sc > score {
			box, score = i, sc
		}
	}
	if box < 0 {
		return nil, fmt.Errorf("surface: form %s has no text box to type a query into", f.ID)
	}
	defaults := map[string]any{}
	for i, fl := range fields {
		if i == box || fl.Name == "" {
			continue
		}
		if v, ok := defaultValue(fl); ok {
			switch old := defaults[fl.Name].(type) {
			case nil:
				defaults[fl.Name] = v
			case string:
				defaults[fl.Name] = []string{old, v}
			case []string:
				defaults[fl.Name] = append(old, v)
			}
		}
	}
	b, _ := json.Marshal(defaults)
	method := strings.ToUpper(f.Method)
	if method != "POST" {
		method = "GET"
	}
	vars := map[string]string{"action": f.Action, "field": fields[box].Name, "method": method, "defaults": string(b)}
	if f.PageURL != "" {
		vars["form_page"] = f.PageURL
	}
	return vars, nil
}

func textBox(fl page.Field) bool {
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

// defaultValue is what a browser submits for a control left untouched.
func defaultValue(fl page.Field) (string, bool) {
	switch fl.Tag {
	case "button":
		return "", false
	case "select":
		for _, o := range fl.Options {
			if o.Selected {
				return o.Value, true
			}
		}
		if fl.Type != "select-multiple" && len(fl.Options) > 0 {
			return fl.Options[0].Value, true
		}
		return "", false
	}
	switch fl.Type {
	case "submit", "button", "reset", "image", "file", "password":
		return "", false
	case "checkbox", "radio":
		if !fl.Checked {
			return "", false
		}
		if fl.Value == "" {
			return "on", true
		}
		return fl.Value, true
	}
	if fl.Value == "" {
		return "", false
	}
	return fl.Value, true
}
