package page

import (
	"fmt"
	"net/url"
	"strings"
)

// Submission is the HTTP request a browser sends when a form is submitted.
type Submission struct {
	// Method is "GET" or "POST".
	Method string
	// URL is the action; for GET its query is the encoded form data.
	URL string
	// Values is the form data set (the POST body).
	Values url.Values
}

// NoSubmitter asks DataSet for an implicit submission (Enter in a text
// box): no button contributes its value.
const NoSubmitter = -1

// DataSet returns the form data set a browser builds when the form is
// submitted with the button Fields[submitter] (or NoSubmitter), following
// HTML's "constructing the entry list": controls without a name or
// disabled are skipped, as are buttons other than the submitter, unchecked
// checkboxes and radio buttons, and file inputs; a select gives its
// selected options (a single select with none selected gives its first);
// an image button gives name.x and name.y. Text controls are sent even when
// empty.
func (f *Form) DataSet(submitter int) url.Values {
	v := url.Values{}
	for i := range f.Fields {
		fl := &f.Fields[i]
		if fl.Disabled {
			continue
		}
		if isButton(fl) {
			if i != submitter {
				continue
			}
			if fl.Type == "image" {
				prefix := ""
				if fl.Name != "" {
					prefix = fl.Name + "."
				}
				v.Add(prefix+"x", "0")
				v.Add(prefix+"y", "0")
				continue
			}
			if fl.Name != "" {
				v.Add(fl.Name, fl.Value)
			}
			continue
		}
		if fl.Name == "" {
			continue
		}
		switch fl.Tag {
		case "select":
			n := 0
			for _, o := range fl.Options {
				if o.Selected {
					v.Add(fl.Name, o.Value)
					n++
					if fl.Type != "select-multiple" {
						break
					}
				}
			}
			if n == 0 && fl.Type != "select-multiple" && len(fl.Options) > 0 {
				v.Add(fl.Name, fl.Options[0].Value)
			}
			continue
		}
		switch fl.Type {
		case "checkbox", "radio":
			if fl.Checked {
				v.Add(fl.Name, fl.Value)
			}
		case "file":
		default:
			v.Add(fl.Name, fl.Value)
		}
	}
	return v
}

// isButton reports whether a control is a button: it contributes a value
// only as the submitter.
func isButton(fl *Field) bool {
	if fl.Tag == "button" {
		return true
	}
	switch fl.Type {
	case "submit", "image", "reset", "button":
		return true
	}
	return false
}

// Submitters returns the indexes in Fields of the form's submit buttons
// (submit and image inputs, submit buttons), in document order.
func (f *Form) Submitters() []int {
	var out []int
	for i := range f.Fields {
		fl := &f.Fields[i]
		if (fl.Tag == "button" && fl.Type == "submit") || (fl.Tag == "input" && (fl.Type == "submit" || fl.Type == "image")) {
			out = append(out, i)
		}
	}
	return out
}

// Submit returns the request that sends values to the form's action: for
// GET the action's query is replaced by the encoded values (HTML's "mutate
// action URL"), for POST they are the body. A form whose action is not
// http(s) cannot be submitted.
func (f *Form) Submit(values url.Values) (Submission, error) {
	if f.Action == "" {
		return Submission{}, fmt.Errorf("page: form %d has no http(s) action", f.Index)
	}
	method := strings.ToUpper(f.Method)
	if method != "POST" {
		method = "GET"
	}
	s := Submission{Method: method, URL: f.Action, Values: values}
	if method == "GET" {
		u, err := url.Parse(f.Action)
		if err != nil {
			return Submission{}, fmt.Errorf("page: form %d action %q: %w", f.Index, f.Action, err)
		}
		u.RawQuery = values.Encode()
		u.Fragment = ""
		s.URL = u.String()
	}
	return s, nil
}
