package form

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/dwcrawl/dwcrawl/core/page"
)

// iso639 are the two-letter language codes of ISO 639-1.
var iso639 = setOf(`aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy
da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii
ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr
ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl
sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu`)

// languageNames are the English names and the autonyms of the languages
// a site is most often offered in, lower case.
var languageNames = setOf(`english german deutsch french français francais spanish español espanol italian italiano
portuguese português portugues brasileiro dutch nederlands russian русский polish polski swedish svenska norwegian
norsk bokmål nynorsk danish dansk finnish suomi czech čeština cestina slovak slovenčina hungarian magyar romanian
română romana turkish türkçe turkce greek ελληνικά arabic العربية hebrew עברית chinese 中文 简体中文 繁體中文
japanese 日本語 korean 한국어 hindi हिन्दी bengali bangla বাংলা ukrainian українська bulgarian български serbian
српски srpski croatian hrvatski slovenian slovenščina lithuanian lietuvių latvian latviešu estonian eesti albanian
shqip armenian հայերեն azerbaijani azərbaycanca belarusian беларуская catalan català basque euskara galician galego
indonesian vietnamese tiếng thai ไทย persian فارسی urdu اردو malay melayu tagalog filipino welsh cymraeg irish
gaeilge icelandic íslenska esperanto georgian ქართული kazakh қазақ uzbek o'zbek mongolian монгол macedonian
македонски bosnian bosanski`)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// localeCode matches a language code with an optional region or script
// ("de", "pt_BR", "zh-Hant"); the language part is checked against ISO
// 639-1, lower case as locales write it (a country select's "DE" is not).
var localeCode = regexp.MustCompile(`^([a-z]{2})(?:[_-][A-Za-z]{2,4})?$`)

// languageOption reports whether a select's option names a language: its
// value or text is a locale code, or its text holds a language's name.
func languageOption(o page.Option) bool {
	for _, s := range []string{strings.TrimSpace(o.Value), strings.TrimSpace(o.Text)} {
		if m := localeCode.FindStringSubmatch(s); m != nil && iso639[m[1]] {
			return true
		}
	}
	words := strings.FieldsFunc(strings.ToLower(o.Text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsMark(r) && r != '\''
	})
	for _, w := range words {
		if languageNames[w] {
			return true
		}
	}
	return false
}

// languageSelect reports whether fd chooses the page's language: a
// select of at least three options, two thirds of them languages (a
// placeholder option with no value aside).
func languageSelect(fd *page.Field) bool {
	if !strings.EqualFold(fd.Tag, "select") {
		return false
	}
	n, langs := 0, 0
	for _, o := range fd.Options {
		if strings.TrimSpace(o.Value) == "" && strings.TrimSpace(o.Text) == "" {
			continue
		}
		n++
		if languageOption(o) {
			langs++
		}
	}
	return n >= 3 && 3*langs >= 2*n
}
