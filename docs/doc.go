// Package docs holds gridtui's documentation: the pages a user reads beside
// README.md (sites, console, schedulers, gateways, prediction, applications,
// developing) and, under bench/, every benchmark's full section. It has no
// code; its tests check that the relative links of README.md, BENCHMARKS.md
// and these pages point to files, directories and headings that exist, and
// that the README's commands and sites.toml examples still hold, so the
// documentation cannot rot silently.
package docs
