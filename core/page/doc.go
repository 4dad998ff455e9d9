// Package page turns a fetched HTML document into what the crawler's
// classifiers and rankers need: its title and visible text, its links (with
// anchor text and the words around the anchor, SmartCrawler's link features,
// Zhao et al. §3.3/§4.2) and its forms with every control, label, option and
// submit caption (the input of HIFI's form classifiers, Barbosa & Freire).
//
// # Forms
//
// Forms are enumerated the way the reference annotations of the shared
// Formasaurus corpus were made, which is an HTML tree builder that
//
//   - parses <noscript> content as markup (the crawler runs no scripts, so
//     it sees what a non-scripting browser shows);
//   - keeps a <form> start tag that appears while another form is open: a
//     new form starts there (an HTML5 parser drops the nested start tag).
//     The open form ends there too, unless elements it opened are still
//     open; then it encloses the new form and also owns its controls, as a
//     browser, which sees a single form, would have it;
//   - ends the document at a NUL byte (HTML text never holds one; pages that
//     do are damaged from that point on).
//
// Everything else follows the HTML5 tree-construction algorithm
// (golang.org/x/net/html), including the form element pointer: a control
// that comes after an unclosed form, or a form opened inside a table whose
// rows hold the controls, belongs to that form even when it is not a DOM
// descendant; a control with form="id" belongs to the form with that id.
// To get there, a tokenizer pass over the document inserts an end tag before
// each nested <form> and marks each form and each control with the forms
// that own it; the tree builder then runs once on the marked document and
// one walk over the tree extracts everything. With these rules the number
// of forms equals the number of annotated forms on all 757 Formasaurus
// pages (an HTML5 parser with scripting on matches 742 of them).
//
// # Charset
//
// Parse decodes the body from the charset named by a byte-order mark, the
// Content-Type header, or a <meta> declaration near the start of the
// document, in that order; without any, a body that is valid UTF-8 is taken
// as UTF-8 and anything else as windows-1252. A body with non-ASCII bytes
// that is valid UTF-8 is read as UTF-8 whatever the header or meta say:
// legacy-encoded text practically never is, and mislabelled or re-encoded
// pages are common (119 of the 757 Formasaurus pages).
package page
