package jobs

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Float is a float64 that survives JSON when it is not finite: a diverged or
// failed run may carry NaN or ±Inf, which encoding/json refuses. Finite
// values are plain JSON numbers; others are the strings "NaN", "+Inf" and
// "-Inf".
type Float float64

// MarshalJSON encodes f as a number, or as a string when not finite.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte(`"NaN"`), nil
	case math.IsInf(v, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

// UnmarshalJSON decodes what MarshalJSON writes (and null as 0).
func (f *Float) UnmarshalJSON(b []byte) error {
	switch s := string(b); s {
	case "null":
		*f = 0
		return nil
	case `"NaN"`:
		*f = Float(math.NaN())
		return nil
	case `"+Inf"`, `"Inf"`:
		*f = Float(math.Inf(1))
		return nil
	case `"-Inf"`:
		*f = Float(math.Inf(-1))
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("jobs: bad number %.20q", b)
	}
	*f = Float(v)
	return nil
}

// complementarityJSON is Complementarity with non-finite-safe numbers.
type complementarityJSON struct {
	MinUMinusPhi Float `json:"min_u_minus_phi"`
	MinAuMinusF  Float `json:"min_au_minus_f"`
	MaxProduct   Float `json:"max_product"`
	Tol          Float `json:"tol"`
	OK           bool  `json:"ok"`
}

// MarshalJSON encodes c with snake_case names; NaN figures (a solution of
// the wrong size) survive as "NaN".
func (c Complementarity) MarshalJSON() ([]byte, error) {
	return json.Marshal(complementarityJSON{
		Float(c.MinUMinusPhi), Float(c.MinAuMinusF), Float(c.MaxProduct), Float(c.Tol), c.OK,
	})
}

// UnmarshalJSON decodes what MarshalJSON writes.
func (c *Complementarity) UnmarshalJSON(b []byte) error {
	var j complementarityJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = Complementarity{
		MinUMinusPhi: float64(j.MinUMinusPhi), MinAuMinusF: float64(j.MinAuMinusF),
		MaxProduct: float64(j.MaxProduct), Tol: float64(j.Tol), OK: j.OK,
	}
	return nil
}
