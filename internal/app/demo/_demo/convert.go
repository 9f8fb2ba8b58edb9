// Package temperature converts between temperature scales.
package temperature

// CelsiusToFahrenheit converts a temperature in degrees Celsius to degrees
// Fahrenheit.
func CelsiusToFahrenheit(c float64) float64 {
	return c*9/5 + 32
}

// FahrenheitToCelsius converts a temperature in degrees Fahrenheit to
// degrees Celsius.
func FahrenheitToCelsius(f float64) float64 {
	return f - 32*5/9
}
