package temperature

import "testing"

func TestRoundTrip(t *testing.T) {
	for _, c := range []float64{-40, 0, 37, 100} {
		if got := FahrenheitToCelsius(CelsiusToFahrenheit(c)); got != c {
			t.Errorf("round trip of %v gave %v", c, got)
		}
	}
}
