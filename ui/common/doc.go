// Package common holds what the console's root and its pages share (the
// soft-serve pattern): the Common value (terminal size, styles, key map,
// logger, context) handed to every page, the console-wide Styles and KeyMap,
// the Component and Page interfaces the root holds its pages by, the
// widgets made with the console's keys and styles (NewList, NewPager), and
// the small text helpers every page draws with.
package common
