package siteclass

import "testing"

// BenchmarkRelevant measures classifying one homepage-sized text.
func BenchmarkRelevant(b *testing.B) {
	c, err := Train("auto", nil, autoKeywords, Options{})
	if err != nil {
		b.Fatal(err)
	}
	home := BundledBackground()[0].Text + " " + BundledBackground()[1].Text
	b.ResetTimer()
	for b.Loop() {
		c.Relevant(home)
	}
}
