package mockdata

import (
	_ "embed"
	"fmt"
)

//go:embed err_map70.json
var errMap70 []byte

func Asset(name string) ([]byte, error) {
	if name == "err_map70.json" {
		return errMap70, nil
	}
	return nil, fmt.Errorf("asset %s not found", name)
}
