package jsonout

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Marshal returns v as JSON with snake_case keys (see the package comment).
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := encode(&b, reflect.ValueOf(v)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// MarshalIndent is Marshal, indented as json.MarshalIndent does.
func MarshalIndent(v any, prefix, indent string) ([]byte, error) {
	b, err := Marshal(v)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, prefix, indent); err != nil {
		return nil, fmt.Errorf("jsonout: indent: %w", err)
	}
	return out.Bytes(), nil
}

// Write writes v to w as indented JSON followed by a newline: what
// `gridtui … --json` prints when its output is one document.
func Write(w io.Writer, v any) error {
	b, err := MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

var (
	durationType  = reflect.TypeFor[time.Duration]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textType      = reflect.TypeFor[encoding.TextMarshaler]()
	errorType     = reflect.TypeFor[error]()
)

// hasOwnForm reports whether values of t encode themselves.
func hasOwnForm(t reflect.Type) bool {
	return t.Implements(marshalerType) || t.Implements(textType)
}

func encode(b *bytes.Buffer, v reflect.Value) error {
	if !v.IsValid() {
		b.WriteString("null")
		return nil
	}
	t := v.Type()
	if t == durationType {
		writeFloat(b, time.Duration(v.Int()).Seconds())
		return nil
	}
	if t.Implements(errorType) && !hasOwnForm(t) {
		if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
			b.WriteString("null")
			return nil
		}
		js, _ := json.Marshal(v.Interface().(error).Error())
		b.Write(js)
		return nil
	}
	if hasOwnForm(t) || (v.CanAddr() && hasOwnForm(reflect.PointerTo(t))) {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			b.WriteString("null")
			return nil
		}
		if v.CanAddr() && !hasOwnForm(t) {
			v = v.Addr()
		}
		js, err := json.Marshal(v.Interface())
		if err != nil {
			return fmt.Errorf("jsonout: %s: %w", t, err)
		}
		b.Write(js)
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		return encode(b, v.Elem())
	case reflect.Struct:
		return encodeStruct(b, v)
	case reflect.Map:
		return encodeMap(b, v)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			b.WriteString("null")
			return nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			js, _ := json.Marshal(v.Interface())
			b.Write(js)
			return nil
		}
		b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encode(b, v.Index(i)); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case reflect.Float32, reflect.Float64:
		writeFloat(b, v.Float())
		return nil
	case reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.Complex64, reflect.Complex128:
		return fmt.Errorf("jsonout: cannot encode a %s", t)
	}
	js, err := json.Marshal(v.Interface())
	if err != nil {
		return fmt.Errorf("jsonout: %s: %w", t, err)
	}
	b.Write(js)
	return nil
}

// writeFloat writes f as encoding/json would, and NaN or ±Inf (which JSON
// cannot carry) as null.
func writeFloat(b *bytes.Buffer, f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		b.WriteString("null")
		return
	}
	js, _ := json.Marshal(f)
	b.Write(js)
}

func encodeStruct(b *bytes.Buffer, v reflect.Value) error {
	b.WriteByte('{')
	first := true
	err := eachField(v, func(key string, f reflect.Value) error {
		if !first {
			b.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		return encode(b, f)
	})
	b.WriteByte('}')
	return err
}

// eachField calls fn with the key and value of every field of struct v that
// is encoded, promoting the fields of embedded structs as encoding/json does.
func eachField(v reflect.Value, fn func(string, reflect.Value) error) error {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		fv := v.Field(i)
		tag, opts := tagName(sf)
		if tag == "-" || (!sf.IsExported() && !sf.Anonymous) {
			continue
		}
		if sf.Anonymous && tag == "" && fv.Kind() == reflect.Struct && !hasOwnForm(sf.Type) {
			if err := eachField(fv, fn); err != nil {
				return err
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if strings.Contains(opts, "omitempty") && fv.IsZero() && fv.Kind() != reflect.Struct {
			continue
		}
		if (fv.Kind() == reflect.Slice || fv.Kind() == reflect.Map) && strings.Contains(opts, "omitempty") && fv.Len() == 0 {
			continue
		}
		key := tag
		if key == "" {
			key = SnakeCase(sf.Name)
		}
		if sf.Type == durationType && !strings.HasSuffix(key, "_seconds") && !hasJSONName(sf) {
			key += "_seconds" // a toml key such as wall_time says its unit here
		}
		if strings.Contains(opts, "nullzero") && fv.IsZero() {
			fv = reflect.ValueOf((*int)(nil)) // unknown: null, not 0
		}
		if err := fn(key, fv); err != nil {
			return err
		}
	}
	return nil
}

// hasJSONName reports whether a field's json tag names its key.
func hasJSONName(sf reflect.StructField) bool {
	tag, ok := sf.Tag.Lookup("json")
	name, _, _ := strings.Cut(tag, ",")
	return ok && name != ""
}

// tagName returns a field's name from its json tag, else its toml tag, and
// the json tag's options.
func tagName(sf reflect.StructField) (name, opts string) {
	if tag, ok := sf.Tag.Lookup("json"); ok {
		name, opts, _ = strings.Cut(tag, ",")
		if name != "" || opts != "" {
			return name, opts
		}
	}
	if tag, ok := sf.Tag.Lookup("toml"); ok {
		name, _, _ = strings.Cut(tag, ",")
	}
	return name, opts
}

func encodeMap(b *bytes.Buffer, v reflect.Value) error {
	if v.IsNil() {
		b.WriteString("null")
		return nil
	}
	type entry struct {
		key string
		val reflect.Value
	}
	var es []entry
	for it := v.MapRange(); it.Next(); {
		k, err := mapKey(it.Key())
		if err != nil {
			return err
		}
		es = append(es, entry{k, it.Value()})
	}
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	b.WriteByte('{')
	for i, e := range es {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.key)
		b.Write(k)
		b.WriteByte(':')
		if err := encode(b, e.val); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

func mapKey(k reflect.Value) (string, error) {
	if tm, ok := k.Interface().(encoding.TextMarshaler); ok {
		s, err := tm.MarshalText()
		return string(s), err
	}
	switch k.Kind() {
	case reflect.String:
		return k.String(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(k.Uint(), 10), nil
	}
	return "", fmt.Errorf("jsonout: map key of type %s", k.Type())
}

// SnakeCase turns a Go field name into a snake_case key: FailedNode →
// failed_node, PeakRSS → peak_rss, AAddr → a_addr, T1 → t1, NICs → nics.
func SnakeCase(name string) string {
	r := []rune(name)
	var out strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 {
			prevLower := unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1])
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			plural := i+1 < len(r) && r[i+1] == 's' && (i+2 == len(r) || unicode.IsUpper(r[i+2]))
			if prevLower || (nextLower && !plural && unicode.IsUpper(r[i-1])) {
				out.WriteByte('_')
			}
		}
		out.WriteRune(unicode.ToLower(c))
	}
	return out.String()
}
