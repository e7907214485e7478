// Package columns aligns tab-separated text into columns as text/tabwriter
// does (left-aligned, padded with spaces), measuring each cell by the
// width a terminal gives it — two columns for a CJK character, none for
// a combining mark or an ANSI sequence — where text/tabwriter counts
// runes, so that tables with Chinese, Japanese or Korean site and host
// names stay aligned.
package columns
