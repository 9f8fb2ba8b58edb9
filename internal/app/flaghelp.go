package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// helpWidth is the width help texts are wrapped to.
const helpWidth = 80

// shortFor is how the usage of a short flag names its long form; help
// lists the short one beside the long one.
const shortFor = "short for --"

// parseFlags parses args into fs, the flag set of the command whose help
// text is usage. done is true when the caller must return code at once:
// help was asked for (printed to stdout, status 0), or a flag is bad (the
// problem and the usage line on stderr, status 2).
func parseFlags(fs *flag.FlagSet, args []string, usage string, stdout, stderr io.Writer) (code int, done bool) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		printHelp(stdout, usage, fs)
		return 0, true
	}
	return usageError(stderr, usage, flagProblem(err)), true
}

// flagProblem words flag's errors with the flags' two dashes.
func flagProblem(err error) error {
	msg := err.Error()
	for _, p := range []string{"flag provided but not defined: -", "flag needs an argument: -", " for flag -"} {
		if i := strings.Index(msg, p); i >= 0 && !strings.HasPrefix(msg[i+len(p):], "-") {
			msg = msg[:i+len(p)] + "-" + msg[i+len(p):]
		}
	}
	return errors.New(msg)
}

// printHelp writes a command's help: its text, then its flags.
func printHelp(w io.Writer, usage string, fs *flag.FlagSet) {
	fmt.Fprint(w, usage)
	if fs != nil {
		printFlags(w, fs)
	}
}

// printFlags lists fs's flags as help shows them: long ones with two
// dashes, a short form beside its long one ("-m, --model MODEL"), the
// value's name in capitals, and the description below, wrapped at
// helpWidth columns.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	shorts := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) {
		if long, ok := strings.CutPrefix(f.Usage, shortFor); ok {
			shorts[long] = f.Name
		}
	})
	fs.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Usage, shortFor) {
			return
		}
		fmt.Fprintf(w, "  %s\n", flagSynopsis(f, shorts[f.Name]))
		_, desc := flag.UnquoteUsage(f)
		if d := f.DefValue; d != "" && d != "false" && d != "0" && d != "[]" && !strings.Contains(desc, "default") {
			desc += " (default " + d + ")"
		}
		for _, line := range wrap(desc, helpWidth-6) {
			fmt.Fprintf(w, "      %s\n", line)
		}
	})
}

// flagSynopsis is a flag's first help line: "-m, --model MODEL",
// "--network[=MODE]", "-c KEY=VALUE".
func flagSynopsis(f *flag.Flag, short string) string {
	dashes := "--"
	if utf8.RuneCountInString(f.Name) == 1 {
		dashes = "-"
	}
	s := dashes + f.Name
	if short != "" {
		s = "-" + short + ", " + s
	}
	name, _ := flag.UnquoteUsage(f)
	name = strings.ToUpper(name)
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		if name == "" {
			return s
		}
		return s + "[=" + name + "]"
	}
	if name == "" || name == "VALUE" || name == "STRING" {
		name = "VALUE"
	}
	return s + " " + name
}

// wrap breaks text into lines of at most width columns, at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width:
			lines = append(lines, line)
			line = word
		default:
			line += " " + word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// durationFlag defines a duration flag that takes a unit ("90s", "5m");
// a number without one is an error, never taken as some unit.
func durationFlag(fs *flag.FlagSet, name string, def time.Duration, usage string) *time.Duration {
	return durationFlagFrom(fs, name, def, usage, false)
}

// durationFlagFrom is durationFlag where zero may be allowed too (a pause
// of nothing, say).
func durationFlagFrom(fs *flag.FlagSet, name string, def time.Duration, usage string, zeroOK bool) *time.Duration {
	d := def
	fs.Func(name, usage, func(v string) error {
		var err error
		d, err = parseDuration(v, zeroOK)
		return err
	})
	if f := fs.Lookup(name); f != nil {
		f.DefValue = def.String()
	}
	return &d
}

// parseDuration reads a positive duration with its unit; zero ("0", no
// unit needed) when zeroOK.
func parseDuration(v string, zeroOK bool) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		if _, nerr := strconv.ParseFloat(v, 64); nerr == nil {
			return 0, fmt.Errorf("%q has no unit: give one, e.g. %ss or %sm", v, v, v)
		}
		return 0, fmt.Errorf("%q: give a duration such as 90s or 5m", v)
	}
	if d < 0 || d == 0 && !zeroOK {
		return 0, fmt.Errorf("%q: the duration must be positive", v)
	}
	return d, nil
}
