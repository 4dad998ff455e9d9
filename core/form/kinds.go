package form

// Form kinds. The first eight are the classes of the kind classifier
// (Formasaurus's labels, with poll, display options, navigation and captcha
// folded into Other); External is decided by rule: a search box that submits
// to a general web search engine, never a site's own hidden database.
const (
	KindSearch       = "search"
	KindLogin        = "login"
	KindRegistration = "registration"
	KindPassword     = "password"   // password / login recovery
	KindContact      = "contact"    // contact or comment
	KindNewsletter   = "newsletter" // join a mailing list
	KindOrder        = "order"      // order / add to cart
	KindOther        = "other"
	KindExternal     = "external" // search box of an external web search engine
)

// Kinds lists the trained kinds in a fixed order.
var Kinds = []string{KindSearch, KindLogin, KindRegistration, KindPassword, KindContact, KindNewsletter, KindOrder, KindOther}

// Searchable and NotSearchable are the SFC's two classes.
const (
	Searchable    = "searchable"
	NotSearchable = "not-searchable"
)

// KindOfLabel maps a Formasaurus form label to a kind; ok is false for
// labels that carry no annotation ("-" skip, "X" not annotated).
func KindOfLabel(label string) (kind string, ok bool) {
	switch label {
	case "s":
		return KindSearch, true
	case "l":
		return KindLogin, true
	case "r":
		return KindRegistration, true
	case "p":
		return KindPassword, true
	case "c":
		return KindContact, true
	case "m":
		return KindNewsletter, true
	case "b":
		return KindOrder, true
	case "o", "P", "V", "N", "C":
		return KindOther, true
	}
	return "", false
}
