package sched

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxNodeSet bounds the expansion of one node-set pattern, so that a typo such
// as "n[1-99999999]" is an error and not an out-of-memory.
const maxNodeSet = 65536

// ErrNodeSet is wrapped by every node-set syntax error.
var ErrNodeSet = errors.New("bad node set")

// ExpandNodeSet expands a ClusterShell-style node set such as
// "graphene-[1-16,20].nancy.example" or "n[01-03]-ib[0-1]" into host names, in
// order. Zero padding is kept ("[01-10]" gives "01" … "10"). Several patterns
// may be separated by commas outside brackets: "a[1-2],b".
func ExpandNodeSet(pattern string) ([]string, error) {
	var out []string
	for _, p := range splitOutsideBrackets(pattern) {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, fmt.Errorf("%w %q: empty name", ErrNodeSet, pattern)
		}
		names, err := expandOne(p, len(out))
		if err != nil {
			return nil, fmt.Errorf("%w %q: %v", ErrNodeSet, pattern, err)
		}
		out = append(out, names...)
	}
	return out, nil
}

// splitOutsideBrackets splits s on commas that are not inside [...].
func splitOutsideBrackets(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// expandOne expands one pattern (no top-level commas); have is the number of
// names already produced, for the size limit.
func expandOne(p string, have int) ([]string, error) {
	open := strings.IndexByte(p, '[')
	if open < 0 {
		if strings.ContainsRune(p, ']') {
			return nil, errors.New("']' without '['")
		}
		return []string{p}, nil
	}
	end := strings.IndexByte(p[open:], ']')
	if end < 0 {
		return nil, errors.New("'[' without ']'")
	}
	end += open
	prefix, body, rest := p[:open], p[open+1:end], p[end+1:]
	if strings.ContainsRune(prefix, ']') || strings.ContainsRune(body, '[') {
		return nil, errors.New("nested or unbalanced brackets")
	}
	items, err := expandRanges(body)
	if err != nil {
		return nil, err
	}
	tails, err := expandOne(rest, have)
	if err != nil {
		return nil, err
	}
	if have+len(items)*len(tails) > maxNodeSet {
		return nil, fmt.Errorf("expands to more than %d names", maxNodeSet)
	}
	out := make([]string, 0, len(items)*len(tails))
	for _, it := range items {
		for _, t := range tails {
			out = append(out, prefix+it+t)
		}
	}
	return out, nil
}

// expandRanges expands the inside of one bracket: "1-16,20", "01-10".
func expandRanges(body string) ([]string, error) {
	if body == "" {
		return nil, errors.New("empty brackets")
	}
	var out []string
	for _, r := range strings.Split(body, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || a < 0 || lo == "" || hi == "" || !allDigits(lo) || !allDigits(hi) {
			return nil, fmt.Errorf("range %q is not N or N-M", r)
		}
		if b < a {
			return nil, fmt.Errorf("range %q goes backwards", r)
		}
		if b-a >= maxNodeSet || len(out)+b-a >= maxNodeSet {
			return nil, fmt.Errorf("range %q expands to more than %d names", r, maxNodeSet)
		}
		width := 0
		if len(lo) > 1 && lo[0] == '0' {
			width = len(lo) // zero padding as written
		}
		for i := a; i <= b; i++ {
			out = append(out, fmt.Sprintf("%0*d", width, i))
		}
	}
	return out, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
