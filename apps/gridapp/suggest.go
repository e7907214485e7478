package gridapp

import "strings"

// Closest returns the one of names nearest to s by edit distance, when it
// is near enough to be a typo of it (at most a third of its letters, and
// at least one, differ), else "": what a "did you mean" names. A name of
// one or two letters is too short to guess from.
func Closest(s string, names []string) string {
	if len([]rune(s)) < 3 {
		return ""
	}
	best, bestD := "", max(1, len([]rune(s))/3)+1
	for _, n := range names {
		if d := distance(strings.ToLower(s), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// DidYouMean is " (did you mean X?)" for the name Closest finds, or "".
func DidYouMean(s string, names []string) string {
	if c := Closest(s, names); c != "" && c != s {
		return " (did you mean " + c + "?)"
	}
	return ""
}

// distance is the Levenshtein distance of a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
