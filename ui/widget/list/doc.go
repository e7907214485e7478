// Package list is the console's list widget: a filterable, sortable,
// scrolling table of rows that is a tree (sites, clusters, hosts) while
// unsorted, with its own Model, KeyMap and Styles. It renders only the
// window on screen, remembers where it drew its rows for mouse clicks, and
// reports whether it consumed a key, so that the page holding it handles
// the rest.
package list
