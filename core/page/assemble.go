package page

import (
	"net/url"
	"sort"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/canon"
)

// page assembles the Page once the walk is done.
func (w *walker) page(base *url.URL) *Page {
	full := string(w.buf.b) // the buffer is reused; Page fields are slices of full
	p := &Page{Title: w.title, Text: w.visibleText(full)}
	if base != nil {
		p.URL = base.String()
		if c, err := canon.Canonical(p.URL); err == nil {
			p.URL = c
		}
	}
	docBase := w.docBase(base)
	switch {
	case docBase == base && base != nil:
		p.Base = p.URL // no <base>: the same canonical URL, not computed twice
	case docBase != nil:
		p.Base = docBase.String()
		if c, err := canon.Canonical(p.Base); err == nil {
			p.Base = c
		}
	}
	p.Links = w.pageLinks(full, docBase)
	p.Forms = w.pageForms(full, docBase, p.URL)
	return p
}

// docBase is the document base URL: the first <base href> resolved against
// the page URL, else the page URL.
func (w *walker) docBase(base *url.URL) *url.URL {
	if !w.haveBase {
		return base
	}
	ref, err := url.Parse(strings.TrimSpace(w.baseHref))
	if err != nil {
		return base
	}
	if base != nil {
		ref = base.ResolveReference(ref)
	}
	if ref.Scheme != "http" && ref.Scheme != "https" || ref.Host == "" {
		return base
	}
	return ref
}

func (w *walker) visibleText(full string) string {
	if len(w.hidden) == 0 {
		return full
	}
	var b strings.Builder
	b.Grow(len(full))
	prev := 0
	for _, h := range w.hidden {
		appendWords(&b, full[prev:h.start])
		prev = h.end
	}
	appendWords(&b, full[prev:])
	return b.String()
}

func appendWords(b *strings.Builder, s string) {
	if s = strings.TrimSpace(s); s == "" {
		return
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(s)
}

func (w *walker) pageLinks(full string, base *url.URL) []Link {
	links := make([]Link, 0, len(w.links))
	for i := range w.links {
		l := &w.links[i]
		href := strings.TrimSpace(l.href)
		if href == "" || href[0] == '#' {
			continue
		}
		u, err := canon.Resolve(base, href)
		if err != nil {
			continue
		}
		anchor := between(full, l.start, l.end)
		if anchor == "" {
			anchor = l.alt
		}
		if anchor == "" {
			anchor = collapse(l.title)
		}
		links = append(links, Link{
			URL:      u,
			Anchor:   anchor,
			Before:   lastWords(full, l.start, LinkContextWords),
			After:    firstWords(full, l.end, LinkContextWords),
			NoFollow: l.nofollow || w.robotsNoFollow,
		})
	}
	return links
}

func (w *walker) pageForms(full string, base *url.URL, pageURL string) []Form {
	if len(w.forms) == 0 {
		return nil
	}
	for _, fs := range w.fields {
		w.assign(fs)
	}
	forms := make([]Form, len(w.forms))
	for i, fs := range w.forms {
		f := fs.f
		f.Action = pageURL
		if a := strings.TrimSpace(fs.action); a != "" {
			f.Action, _ = canon.Resolve(base, a)
		}
		f.Text = between(full, fs.start, fs.regionEnd)
		f.Context = lastWords(full, fs.start, FormContextWords)
		f.LinkText = w.linkText(full, fs.start, fs.regionEnd)
		f.Fields = make([]Field, len(fs.fields))
		for j, fd := range fs.fields {
			f.Fields[j] = fd.f
			f.Fields[j].Label = w.fieldLabel(full, fs, j)
			if fd.isSubmit() {
				f.Submits = append(f.Submits, fd.caption)
			}
		}
		forms[i] = f
	}
	return forms
}

// linkText is the text of the links that lie within [lo, hi) of full
// (w.links are in document order: a page with many forms and links costs a
// search per form, not a pass over every link).
func (w *walker) linkText(full string, lo, hi int) string {
	var b strings.Builder
	i := sort.Search(len(w.links), func(i int) bool { return w.links[i].start >= lo })
	for ; i < len(w.links) && w.links[i].start < hi; i++ {
		if l := &w.links[i]; l.end <= hi && l.end > l.start {
			appendWords(&b, between(full, l.start, l.end))
		}
	}
	return b.String()
}

// assign adds a control to the forms that own it: the form its form
// attribute names, else the forms its owner mark lists (the form the form
// element pointer designated when it was parsed, and the forms enclosing a
// nested form, which a browser would merge with it), else its nearest form
// ancestor.
func (w *walker) assign(fs *fieldState) {
	add := func(f *formState) {
		f.fields = append(f.fields, fs)
		f.regionEnd = max(f.regionEnd, fs.end)
	}
	switch {
	case fs.hasFormAttr:
		if f := w.formByID[fs.formAttr]; f != nil {
			add(f)
		}
	case len(fs.owners) > 0 && w.formByOrd[fs.owners[0]] != nil:
		for _, ord := range fs.owners {
			if f := w.formByOrd[ord]; f != nil {
				add(f)
			}
		}
	case fs.domForm != nil:
		add(fs.domForm)
	}
}

// isSubmit reports whether the control is a submit or push button, whose
// caption goes to Form.Submits.
func (fs *fieldState) isSubmit() bool {
	switch fs.f.Type {
	case "submit", "image", "button":
		return true
	}
	return false
}

// fieldLabel finds the label of the j-th control of form fs.
func (w *walker) fieldLabel(full string, fs *formState, j int) string {
	fd := fs.fields[j]
	if !fd.labelable || fd.f.Tag == "button" {
		return ""
	}
	switch fd.f.Type {
	case "submit", "reset", "button", "image":
		return ""
	}
	if fd.f.ID != "" {
		if li, ok := w.labelFor[fd.f.ID]; ok {
			if s := w.labelText(full, li); s != "" {
				return s
			}
		}
	}
	if fd.wrapLabel >= 0 {
		if s := w.labelText(full, fd.wrapLabel); s != "" {
			return s
		}
	}
	if fd.f.Placeholder != "" {
		return fd.f.Placeholder
	}
	if fd.ariaLabel != "" {
		return fd.ariaLabel
	}
	if fd.f.Type == "checkbox" || fd.f.Type == "radio" {
		hi := max(fs.end, fs.regionEnd)
		if j+1 < len(fs.fields) {
			hi = fs.fields[j+1].start
		}
		return trimLabel(firstWords(full[:clamp(hi, fd.end, len(full))], fd.end, nearbyWords))
	}
	lo := fs.start
	if j > 0 {
		lo = fs.fields[j-1].end
	}
	lo = clamp(lo, 0, fd.start)
	return trimLabel(lastWords(full[lo:fd.start], fd.start-lo, nearbyWords))
}

// labelText is the text of label li without the text of controls inside it.
func (w *walker) labelText(full string, li int) string {
	l := &w.labels[li]
	if len(l.inner) == 0 {
		return trimLabel(between(full, l.start, l.end))
	}
	var b strings.Builder
	prev := l.start
	for _, in := range l.inner {
		appendWords(&b, between(full, prev, in.start))
		prev = max(prev, in.end)
	}
	appendWords(&b, between(full, prev, l.end))
	return trimLabel(b.String())
}

// trimLabel drops the decoration around label text ("Name: *").
func trimLabel(s string) string {
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), ":*：| "))
}
