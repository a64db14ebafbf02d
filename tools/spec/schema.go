package spec

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// patterns are the named patterns a schema tag may use (a regular
// expression cannot sit in a comma-separated tag).
var patterns = map[string]string{
	// name: identifiers that are safe as keys in every store.
	"name": `^[A-Za-z0-9._:@/+-]+$`,
}

// Schema returns the JSON schema of T: the structure and descriptions that
// github.com/google/jsonschema-go infers from the json and jsonschema tags
// (the library mcp-go and the official MCP Go SDK use), with the limits of
// the schema tags applied. Schema tags hold comma-separated keyword=value
// pairs: minimum, maximum, exclusiveMinimum, default, minLength, maxLength,
// minItems, maxItems, enum (values separated by |), pattern (a name from
// patterns), and items.KEYWORD for a slice's items.
func Schema[T any]() *jsonschema.Schema { return schemaOf[T]().schema }

// compiled is a type's schema and the JSON object of its defaults, both
// made once per type (Decode reads the defaults on every call).
type compiled struct {
	schema   *jsonschema.Schema
	defaults json.RawMessage
}

var schemas sync.Map // reflect.Type -> *compiled

func schemaOf[T any]() *compiled {
	t := reflect.TypeFor[T]()
	if c, ok := schemas.Load(t); ok {
		return c.(*compiled)
	}
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{})
	if err != nil {
		panic(fmt.Sprintf("spec: schema of %s: %v", t, err)) // a programming error, caught by the tests
	}
	if err := applyTags(t, s, true); err != nil {
		panic(fmt.Sprintf("spec: schema of %s: %v", t, err))
	}
	c, _ := schemas.LoadOrStore(t, &compiled{schema: s, defaults: defaultsOf(s)}) // the first, if two made one at once
	return c.(*compiled)
}

// SchemaJSON is Schema[T] as JSON.
func SchemaJSON[T any]() json.RawMessage {
	raw, err := json.Marshal(Schema[T]())
	if err != nil {
		panic(err)
	}
	return raw
}

func applyTags(t reflect.Type, s *jsonschema.Schema, top bool) error {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
		if s.Items != nil {
			s = s.Items
		}
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		prop := s.Properties[name]
		if prop == nil {
			continue
		}
		// Optional fields are not "null or T": a client either leaves them
		// out or sends a T.
		if prop.Type == "" && len(prop.Types) == 2 && prop.Types[0] == "null" {
			prop.Type, prop.Types = prop.Types[1], nil
		}
		if tag := f.Tag.Get("schema"); tag != "" {
			for kv := range strings.SplitSeq(tag, ",") {
				key, val, ok := strings.Cut(kv, "=")
				if !ok {
					return fmt.Errorf("field %s: schema tag %q: want keyword=value", f.Name, kv)
				}
				target := prop
				if k, ok := strings.CutPrefix(key, "items."); ok {
					if prop.Items == nil {
						return fmt.Errorf("field %s: %s on a non-array", f.Name, key)
					}
					target, key = prop.Items, k
				}
				if key == "default" && (!top || target != prop) {
					return fmt.Errorf("field %s: a default below the top level (Decode applies top-level ones only)", f.Name)
				}
				if err := setKeyword(target, key, val); err != nil {
					return fmt.Errorf("field %s: %w", f.Name, err)
				}
			}
		}
		if err := applyTags(f.Type, prop, false); err != nil {
			return err
		}
	}
	return nil
}

func setKeyword(s *jsonschema.Schema, key, val string) error {
	num := func() (*float64, error) {
		f, err := strconv.ParseFloat(val, 64)
		return &f, err
	}
	integer := func() (*int, error) {
		n, err := strconv.Atoi(val)
		return &n, err
	}
	var err error
	switch key {
	case "minimum":
		s.Minimum, err = num()
	case "maximum":
		s.Maximum, err = num()
	case "exclusiveMinimum":
		s.ExclusiveMinimum, err = num()
	case "minLength":
		s.MinLength, err = integer()
	case "maxLength":
		s.MaxLength, err = integer()
	case "minItems":
		s.MinItems, err = integer()
	case "maxItems":
		s.MaxItems, err = integer()
	case "default":
		if !json.Valid([]byte(val)) {
			return fmt.Errorf("default %q is not JSON", val)
		}
		s.Default = json.RawMessage(val)
	case "enum":
		for v := range strings.SplitSeq(val, "|") {
			s.Enum = append(s.Enum, v)
		}
	case "pattern":
		p, ok := patterns[val]
		if !ok {
			return fmt.Errorf("unknown pattern %q", val)
		}
		s.Pattern = p
	default:
		return fmt.Errorf("unknown schema keyword %q", key)
	}
	return err
}

// FieldError is an argument that breaks its schema: it names the argument
// (messages[3].content) and the rule.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Validate checks decoded JSON arguments (nil, or a map[string]any as
// encoding/json produces) against T's schema, exactly as the schema
// declares it, and returns the first violation as a *FieldError.
func Validate[T any](args any) error {
	if args == nil {
		args = map[string]any{}
	}
	return validate(Schema[T](), args, "")
}

// validate checks v, at path ("" for the arguments themselves), against
// s, by its type, and returns the first violation as a *FieldError.
func validate(s *jsonschema.Schema, v any, path string) error {
	switch s.Type {
	case "object":
		return validateObject(s, v, path)
	case "array":
		return validateArray(s, v, path)
	case "string":
		return validateString(s, v, path)
	case "integer", "number":
		return validateNumber(s, v, path)
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fail(path, "must be true or false, got %s", describe(v))
		}
	}
	return nil
}

// fail is the FieldError of the value at path (the arguments themselves
// when path is ""), its message made of format and a.
func fail(path, format string, a ...any) error {
	return &FieldError{Field: cmp.Or(path, "arguments"), Msg: fmt.Sprintf(format, a...)}
}

// validateObject checks v, at path, against s of type object: no
// property s does not name (first: a misspelt name is the likelier cause
// of a missing one), every required property given, each property
// valid, in the order of their names.
func validateObject(s *jsonschema.Schema, v any, path string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fail(path, "must be an object, got %s", describe(v))
	}
	names := slices.Sorted(maps.Keys(m))
	for _, name := range names {
		if s.Properties[name] == nil {
			known := slices.Sorted(maps.Keys(s.Properties))
			takes := strings.Join(known, ", ")
			if len(known) == 0 {
				takes = "none"
			}
			return &FieldError{Field: join(path, name), Msg: fmt.Sprintf("is not an argument of this tool (it takes %s)", takes)}
		}
	}
	for _, name := range s.Required {
		if _, ok := m[name]; !ok {
			return &FieldError{Field: join(path, name), Msg: "is required"}
		}
	}
	for _, name := range names {
		if err := validate(s.Properties[name], m[name], join(path, name)); err != nil {
			return err
		}
	}
	return nil
}

// validateArray checks v, at path, against s of type array: its number
// of items, and each item.
func validateArray(s *jsonschema.Schema, v any, path string) error {
	field := cmp.Or(path, "arguments")
	a, ok := v.([]any)
	if !ok {
		return fail(path, "must be an array, got %s", describe(v))
	}
	if s.MinItems != nil && len(a) < *s.MinItems {
		return fail(path, "holds %d items; at least %d needed", len(a), *s.MinItems)
	}
	if s.MaxItems != nil && len(a) > *s.MaxItems {
		return fail(path, "holds %d items; the limit is %d", len(a), *s.MaxItems)
	}
	for i, item := range a {
		if err := validate(s.Items, item, fmt.Sprintf("%s[%d]", field, i)); err != nil {
			return err
		}
	}
	return nil
}

// validateString checks v, at path, against s of type string: its length
// in characters, its enum and its pattern.
func validateString(s *jsonschema.Schema, v any, path string) error {
	str, ok := v.(string)
	if !ok {
		return fail(path, "must be a string, got %s", describe(v))
	}
	if s.MinLength != nil || s.MaxLength != nil {
		n := utf8.RuneCountInString(str)
		if s.MinLength != nil && n < *s.MinLength {
			if *s.MinLength == 1 {
				return fail(path, "must not be empty")
			}
			return fail(path, "is %d characters; at least %d needed", n, *s.MinLength)
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			return fail(path, "is %d characters; the limit is %d", n, *s.MaxLength)
		}
	}
	if len(s.Enum) > 0 && !slices.Contains(s.Enum, any(str)) {
		return fail(path, "must be one of %s, got %q", enumText(s.Enum), clip(str))
	}
	if s.Pattern != "" && !regexpFor(s.Pattern).MatchString(str) {
		if str == "" {
			return fail(path, "must not be empty")
		}
		return fail(path, "%q has a character outside %s", clip(str), s.Pattern)
	}
	return nil
}

// validateNumber checks v, at path, against s of type integer or number:
// a finite number (a float64 or a json.Number), whole for an integer,
// within s's bounds.
func validateNumber(s *jsonschema.Schema, v any, path string) error {
	f, ok := v.(float64)
	if !ok {
		if n, isNum := v.(json.Number); isNum {
			var err error
			if f, err = n.Float64(); err != nil {
				return fail(path, "must be a number, got %s", n)
			}
			ok = true
		}
	}
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return fail(path, "must be a number, got %s", describe(v))
	}
	if s.Type == "integer" && f != math.Trunc(f) {
		return fail(path, "must be a whole number, got %s", num(f))
	}
	if s.Minimum != nil && f < *s.Minimum {
		return fail(path, "must be at least %s%s, got %s", num(*s.Minimum), upTo(s), num(f))
	}
	if s.ExclusiveMinimum != nil && f <= *s.ExclusiveMinimum {
		return fail(path, "must be greater than %s%s, got %s", num(*s.ExclusiveMinimum), upTo(s), num(f))
	}
	if s.Maximum != nil && f > *s.Maximum {
		return fail(path, "must be at most %s, got %s", num(*s.Maximum), num(f))
	}
	return nil
}

// num writes a number as a person would: a whole one in digits
// (1073741824, not 1.073741824e+09), others as Go's shortest form.
func num(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func upTo(s *jsonschema.Schema) string {
	if s.Maximum == nil {
		return ""
	}
	return fmt.Sprintf(" and at most %s", num(*s.Maximum))
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return num(x)
	case json.Number:
		return x.String()
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func enumText(vs []any) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = fmt.Sprint(v)
	}
	return strings.Join(out, ", ")
}

// clip shortens a value quoted in an error, so an error never echoes a huge
// argument back.
func clip(s string) string {
	if len(s) <= 80 {
		return s
	}
	cut := 80
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

var regexps sync.Map

func regexpFor(p string) *regexp.Regexp {
	if re, ok := regexps.Load(p); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(p)
	regexps.Store(p, re)
	return re
}

// Decode validates args against T's schema and decodes them into a T, with
// the schema's defaults for what args leave out. args is the JSON of the
// arguments (json.RawMessage: mcp-go keeps a call's as it came, in
// CallToolRequest.RawArguments), or a Go value, which is encoded once (an
// in-process client's arguments).
func Decode[T any](args any) (T, error) {
	var out T
	raw, ok := args.(json.RawMessage)
	if !ok && args != nil {
		var err error
		if raw, err = json.Marshal(args); err != nil {
			return out, &FieldError{Field: "arguments", Msg: err.Error()}
		}
	}
	var v any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &v); err != nil {
			if ferr := outOfRange(raw); ferr != nil {
				return out, ferr
			}
			return out, &FieldError{Field: "arguments", Msg: err.Error()}
		}
		if ok {
			if err := notUTF8(raw); err != nil {
				return out, err
			}
		}
	}
	if err := Validate[T](v); err != nil {
		return out, err
	}
	// the defaults first: what the arguments hold decodes over them
	decode := func(raw []byte) error {
		if err := json.Unmarshal(schemaOf[T]().defaults, &out); err != nil {
			return err
		}
		if len(raw) == 0 {
			return nil
		}
		return json.Unmarshal(raw, &out)
	}
	if err := decode(raw); err != nil {
		// a whole number written as 10.0 or 1e1, an integer to JSON
		// Schema (and so to Validate), is no int to encoding/json: the
		// validated value, encoded again, writes it as 10
		var typeErr *json.UnmarshalTypeError
		again, merr := json.Marshal(v)
		if !errors.As(err, &typeErr) || merr != nil {
			return out, &FieldError{Field: "arguments", Msg: err.Error()}
		}
		if err := decode(again); err != nil {
			return out, &FieldError{Field: "arguments", Msg: err.Error()}
		}
	}
	return out, nil
}

// defaultsOf is the JSON object of the defaults of schema s. They are top
// level only (applyTags refuses a nested one), so decoding the arguments
// over them leaves a default exactly where the arguments have no value.
func defaultsOf(s *jsonschema.Schema) json.RawMessage {
	d := map[string]json.RawMessage{}
	for name, prop := range s.Properties {
		if prop.Default != nil {
			d[name] = prop.Default
		}
	}
	raw, err := json.Marshal(d)
	if err != nil {
		panic(err) // setKeyword checked that each is JSON
	}
	return raw
}
