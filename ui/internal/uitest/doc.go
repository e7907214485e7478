// Package uitest holds what the console's page and widget tests share: the
// terminal sizes every page is checked at, golden files under testdata/
// (rewritten with -update), the body-size check and key messages by name.
// Only tests import it.
package uitest
