package cli

import "github.com/spf13/pflag"

// aliases are the older names of flags that now have the name every
// command gives their idea (docs/flags.md); they keep working.
var aliases = map[string]string{
	"namespace": "argocd-namespace", // bootstrap's, before it took status's name
}

// flagAliases is the pflag.NormalizeFunc of the commands that had a flag
// under an older name: it maps the alias to the flag's name.
func flagAliases(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	if to, ok := aliases[name]; ok {
		return pflag.NormalizedName(to)
	}
	return pflag.NormalizedName(name)
}
