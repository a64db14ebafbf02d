package spec

import (
	"reflect"
	"testing"
)

// Namespaced names exactly the tools whose arguments have a namespace.
func TestNamespaced(t *testing.T) {
	for tool, args := range map[string]any{"remember": RememberArgs{}, "recall": RecallArgs{}, "forget": ForgetArgs{}, "today": TodayArgs{}} {
		_, has := reflect.TypeOf(args).FieldByName("Namespace")
		if Namespaced(tool) != has {
			t.Errorf("Namespaced(%q) = %v, but its arguments have a namespace: %v", tool, Namespaced(tool), has)
		}
	}
}
