package surface

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/store"
)

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
	box := page.QueryBox(fields)
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
