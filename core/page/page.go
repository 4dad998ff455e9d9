package page

import (
	"bytes"
	"fmt"
	"io"
	"net/url"

	"golang.org/x/net/html"
)

// Page is a parsed HTML document.
type Page struct {
	// URL is the canonical URL of the page (the base given to Parse).
	URL string
	// Title is the text of the first <title>, white space collapsed.
	Title string
	// Text is the visible text of the document, white space collapsed; the
	// contents of script, style, noscript and template elements are left out.
	Text string
	// Links are the page's <a href> and <area href> links to http(s) URLs in
	// document order, javascript:, mailto: and same-page "#…" links left out.
	Links []Link
	// Forms are the page's forms in document order.
	Forms []Form
	// Base is the URL relative links were resolved against: the first
	// <base href> resolved against URL, or URL.
	Base string
}

// Link is one hyperlink.
type Link struct {
	// URL is absolute and canonical (canon.Resolve against the page base).
	URL string
	// Anchor is the link text, or the alt text of images inside it, or its
	// title/aria-label attribute.
	Anchor string
	// Before and After are the (up to) LinkContextWords words of page text
	// just before and just after the anchor.
	Before, After string
	// NoFollow is set by rel="nofollow" on the link or a robots meta tag
	// with nofollow on the page.
	NoFollow bool
}

// Form is one <form> with the controls it owns.
type Form struct {
	// Index is the form's position among the page's forms, from 0.
	Index int
	// ID, Name and Class are the form element's attributes.
	ID, Name, Class string
	// Action is the absolute canonical URL the form submits to (the page
	// URL when the action is empty or missing; "" when it is not http(s)).
	Action string
	// Method is "GET" or "POST".
	Method string
	// Enctype is "application/x-www-form-urlencoded", "multipart/form-data"
	// or "text/plain".
	Enctype string
	// Fields are the controls the form owns, in document order.
	Fields []Field
	// Submits are the captions of its submit and push buttons.
	Submits []string
	// Text is the visible text of the form (from its start tag to its last
	// control when the form element itself is empty, as in a form opened
	// inside a table).
	Text string
	// Context is the (up to) FormContextWords words of page text before the
	// form.
	Context string
	// LinkText is the text of the links inside the form, space-separated:
	// part of Text, but navigation ("Advanced", "Search" pointing to
	// another page) rather than words about the form's own fields.
	LinkText string
}

// Field is one form control.
type Field struct {
	// Tag is "input", "select", "textarea" or "button".
	Tag string
	// Type is the input type (lower case, "text" when missing or unknown),
	// "select-one"/"select-multiple", "textarea", or the button type
	// ("submit", "button", "reset").
	Type string
	// Name and ID are the control's attributes.
	Name, ID string
	// Label is the control's label: from <label for>, a wrapping <label>,
	// the placeholder, aria-label, or the nearby text (before a text-like
	// control, after a checkbox or radio button). Empty for hidden inputs and
	// buttons.
	Label string
	// Placeholder is the placeholder attribute.
	Placeholder string
	// Value is the default value: the value attribute, the text of a
	// textarea, the first selected (else the first) option of a select,
	// "on" for a checkbox or radio button without one.
	Value string
	// Options are a select's options in order.
	Options []Option
	// Checked is set for checkboxes and radio buttons checked by default.
	Checked bool
	// Required is set by the required attribute.
	Required bool
	// Disabled is set by the disabled attribute: a browser submits no
	// value for the control.
	Disabled bool `json:",omitempty"`
	// Size and MaxLength are the size and maxlength attributes (0 when
	// missing or not a number): how many characters the box shows and
	// takes, a hint of a number box or a text box.
	Size, MaxLength int
}

// Option is one <option> of a select.
type Option struct {
	Value, Text string
	Selected    bool
}

// Sizes of the text windows around links and forms.
const (
	LinkContextWords = 10
	FormContextWords = 30
)

// Parse parses an HTML document fetched from base. contentType is the HTTP
// Content-Type header ("" if unknown); the charset comes from it, a
// byte-order mark, a <meta> declaration or sniffing. base may be nil, in which
// case only absolute links and actions are kept. The error is non-nil only
// for documents the tree builder refuses (more than 512 nested open
// elements).
func Parse(body []byte, contentType string, base *url.URL) (*Page, error) {
	return parseUTF8(decode(body, contentType), base)
}

// ParseReader parses an HTML document that is already UTF-8 (invalid bytes
// become U+FFFD; a byte-order mark is dropped and a NUL byte ends the
// document, as in Parse).
func ParseReader(r io.Reader, base *url.URL) (*Page, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("page: read: %w", err)
	}
	b = bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))
	return parseUTF8(truncateNUL(validUTF8(b)), base)
}

func parseUTF8(src []byte, base *url.URL) (p *Page, err error) {
	defer func() {
		// The tree builder panics on states it believes impossible; one bad
		// page must not take the crawler down.
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("page: parse %s: internal error: %v", urlString(base), r)
		}
	}()
	sp := splicers.Get().(*splicer)
	sp.mark(src)
	root, err := html.ParseWithOptions(sp, html.ParseOptionEnableScripting(false))
	sp.release()
	splicers.Put(sp)
	if err != nil {
		return nil, fmt.Errorf("page: parse %s: %w", urlString(base), err)
	}
	return extract(root, base), nil
}

func urlString(u *url.URL) string {
	if u == nil {
		return "(no URL)"
	}
	return u.String()
}
