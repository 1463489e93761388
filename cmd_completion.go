package main

import (
	"io"
	"strings"
)

const completionUsage = `
Usage: ratelab completion bash|zsh|fish

Prints the script that completes ratelab's command lines in that shell: the
commands, their flags, scenario names (of the embedded catalogue, or of the
scenario file given with --file earlier on the line), lane and algorithm names
(--lanes, --algorithms: comma-separated, each completed in turn), the formats and
the other values with a fixed set, and file or folder names where a flag takes
one. The script asks this ratelab binary what may come next (ratelab __complete),
so it always knows the commands and scenarios of the ratelab on your PATH.

To install it for bash, where the bash-completion package looks:
  ratelab completion bash > ~/.local/share/bash-completion/completions/ratelab
or, without that package, in ~/.bashrc:
  source <(ratelab completion bash)
For zsh, into a folder of $fpath, where compinit finds it:
  ratelab completion zsh > "${fpath[1]}/_ratelab"
or in ~/.zshrc, after compinit:
  source <(ratelab completion zsh)
For fish:
  ratelab completion fish > ~/.config/fish/completions/ratelab.fish

Then open a new shell.`

// shells are the shells ratelab completes in.
var shells = []string{"bash", "zsh", "fish"}

func runCompletion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("completion", completionUsage, stderr)
	rest, err := parseFlagsAndArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("completion: name one shell: %s", strings.Join(shells, ", "))
	}
	var script string
	switch rest[0] {
	case "bash":
		script = bashCompletion
	case "zsh":
		script = zshCompletion
	case "fish":
		script = fishCompletion
	default:
		return usagef("completion: no completion for %q; name one of %s", rest[0], strings.Join(shells, ", "))
	}
	_, err = io.WriteString(stdout, script)
	return err
}

// bashCompletion completes with _ratelab, which passes the words up to the
// cursor to ratelab __complete and turns its answer into COMPREPLY. bash splits
// --flag=value at the "=" (COMP_WORDBREAKS); ratelab joins the words back.
const bashCompletion = `# bash completion for ratelab (ratelab completion bash)
_ratelab() {
    local cur=${COMP_WORDS[COMP_CWORD]} prog=${COMP_WORDS[0]} line kind
    local -a out=()
    [[ $prog == "~/"* ]] && prog=$HOME/${prog#"~/"}
    while IFS= read -r line; do
        out+=("$line")
    done < <("$prog" __complete bash "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
    COMPREPLY=()
    kind=${out[0]-}
    [[ $cur == "=" ]] && cur=""
    case $kind in
    files)
        compopt -o filenames 2>/dev/null
        while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "$cur")
        ;;
    dirs)
        compopt -o filenames 2>/dev/null
        while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -d -- "$cur")
        ;;
    words*)
        COMPREPLY=("${out[@]:1}")
        [[ $kind == *nospace* ]] && compopt -o nospace 2>/dev/null
        ;;
    esac
    return 0
}
complete -F _ratelab ratelab
`

// zshCompletion is a #compdef function: saved as _ratelab in $fpath it is
// autoloaded; sourced after compinit, it registers itself.
const zshCompletion = `#compdef ratelab
# zsh completion for ratelab (ratelab completion zsh)
_ratelab() {
    local -a out words_ displays
    local kind line
    out=("${(@f)$(${words[1]} __complete zsh "${(@)words[2,CURRENT]}" 2>/dev/null)}")
    kind=${out[1]}
    case $kind in
    files) _files ;;
    dirs) _files -/ ;;
    words*)
        for line in "${(@)out[2,-1]}"; do
            [[ -z $line ]] && continue
            words_+=("${line%%$'\t'*}")
            if [[ $line == *$'\t'* ]]; then
                displays+=("${line%%$'\t'*}  -- ${line#*$'\t'}")
            else
                displays+=("${line}")
            fi
        done
        (( ${#words_} )) || return 1
        if [[ $kind == *nospace* ]]; then
            compadd -Q -S '' -l -d displays -a words_
        else
            compadd -Q -l -d displays -a words_
        fi
        ;;
    *) return 1 ;;
    esac
}
if [[ "${funcstack[1]}" == _ratelab ]]; then
    _ratelab "$@"
elif (( $+functions[compdef] )); then
    compdef _ratelab ratelab
fi
`

// fishCompletion asks ratelab for the candidates of the token under the cursor;
// fish shows the descriptions after a tab.
const fishCompletion = `# fish completion for ratelab (ratelab completion fish)
function __ratelab_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l out ($words[1] __complete fish $words[2..-1] "$cur" 2>/dev/null)
    switch "$out[1]"
        case files
            __fish_complete_path (commandline -ct)
        case dirs
            __fish_complete_directories (commandline -ct)
        case 'words*'
            printf '%s\n' $out[2..-1]
    end
end
complete -c ratelab -f -a '(__ratelab_complete)'
`
