package pagetools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Tools for what people use outside forms: repeated items with actions of
// their own (toggle_todo, delete_todo, edit_todo), switches (filters,
// tabs, pagination: go_to_page) and fields grouped by their container (a
// lone field whose Enter does the work: add_todo). Each call says in the
// page what it expects to see; the engine asks after the page settles and
// answers an error when it did not see it.

// More origins of tools.
const (
	OriginItem   = "item"   // an action of one of a list's repeated items
	OriginSwitch = "switch" // one of a row of filters, tabs or pages
)

// rawItems is a list whose items have actions of their own: a rawList
// (where it is, what it is called) and its items' labels and actions.
type rawItems struct {
	rawList
	Labels  []string    `json:"labels"`  // the shown items' labels, unique
	Checked []bool      `json:"checked"` // whether each label's checkbox is ticked
	Actions []rawAction `json:"actions"`
}

type rawAction struct {
	Kind  string `json:"kind"` // toggle, button or edit
	Label string `json:"label"`
	Hint  string `json:"hint"` // a button's class words when it has no label
}

// rawSwitch is a row of links or buttons: filters or tabs (one is the
// current one) or pages.
type rawSwitch struct {
	ID      int      `json:"id"`
	Kind    string   `json:"kind"` // page, tab or choice
	Options []string `json:"options"`
	Current string   `json:"current"`
	Label   string   `json:"label"`
	Heading string   `json:"heading"`
	Hint    string   `json:"hint"`
	Score   int      `json:"score"`
	Count   int      `json:"count"` // disclosure: how many there are (Options holds the first)
}

// itemEnumBytes bounds an item parameter's enum (the labels of a list's
// items); a longer list is a string the page checks.
const itemEnumBytes = 2048

// itemTools are the tools of one list's items, one per action.
func itemTools(l rawItems, gen int, names *namer) []candidate {
	noun := listNoun(l.rawList)
	var out []candidate
	for i, a := range l.Actions {
		verb := actionVerb(a)
		if verb == "" {
			continue
		}
		name := verb + "_" + noun
		if strings.HasSuffix(verb, "_"+noun) || verb == noun {
			name = verb
		}
		s := &Schema{Type: "object", Closed: true, Required: []string{"item"}}
		s.Properties = append(s.Properties, Property{Name: "item", Schema: itemParam(l)})
		var own string
		ann := Annotations{OpenWorldHint: true}
		switch a.Kind {
		case "toggle":
			own = "Clicks the checkbox of one item of a list on the page (ticks it, or unticks a ticked one) and checks that it changed."
			if ticked := tickedLabels(l); ticked != "" {
				own += " Ticked now: " + ticked + "."
			} else {
				own += " None is ticked now."
			}
		case "edit":
			own = "Edits one item of a list on the page the way a person does (double-clicks its label, types the new text, presses Enter) and checks that it was renamed."
			one := 1
			s.Properties = append(s.Properties, Property{Name: "text", Schema: &Schema{Type: "string", MinLength: &one, Description: "The item's new text."}})
			s.Required = append(s.Required, "text")
			ann.DestructiveHint = true
		default:
			what := firstNonEmpty(a.Label, a.Hint)
			own = fmt.Sprintf("Clicks the %s button of one item of a list on the page", pageLabel(what, 60))
			if verb == "delete" {
				own += " and checks that the item is gone."
			} else {
				own += " and checks that the item changed."
			}
			ann.DestructiveHint = !harmless.MatchString(verb)
		}
		t := Tool{
			Name:        names.unique(name),
			Description: pageSays(own, firstNonEmpty(l.Label, l.Heading), descMax),
			InputSchema: marshalSchema(s),
			Annotations: ann,
			Origin:      OriginItem,
		}
		r := &toolRef{origin: OriginItem, gen: gen, id: l.ID, action: i, schema: s, name: t.Name}
		out = append(out, candidate{tool: t, ref: r, group: 2, score: l.Score})
	}
	return out
}

// deleteWords are the labels (or class words) of a button that removes
// its item.
var deleteWords = map[string]bool{"delete": true, "remove": true, "destroy": true, "trash": true, "discard": true,
	"×": true, "✕": true, "✖": true, "x": true, "🗑": true}

// actionVerb names what an item action does: toggle, edit, delete, or the
// button's own words.
func actionVerb(a rawAction) string {
	switch a.Kind {
	case "toggle", "edit":
		return a.Kind
	}
	words := strings.ToLower(strings.TrimSpace(firstNonEmpty(a.Label, a.Hint)))
	first := strings.Fields(words)
	if len(first) > 0 && (deleteWords[first[0]] || deleteWords[words]) {
		return "delete"
	}
	return snake(words, 3, 24)
}

// itemParam is the "item" parameter: the items' labels as an enum when
// they fit, else a string the page checks, its first labels listed.
func itemParam(l rawItems) *Schema {
	p := &Schema{Type: "string"}
	size, longest := 0, 0
	for _, v := range l.Labels {
		size, longest = size+len(v)+3, max(longest, len(v))
	}
	if len(l.Labels) <= optionMax && len(l.Labels) == uniqueCount(l.Labels) && longest <= enumValueMax && size <= itemEnumBytes {
		p.Enum = append([]string(nil), l.Labels...)
		p.Description = "The item, by its label as the page shows it."
		return p
	}
	fd := rawField{OptionCount: l.Count}
	for _, v := range l.Labels {
		fd.Options = append(fd.Options, rawOption{V: v})
	}
	p.Description = "The item, by its label as the page shows it; the page checks it. " + someOptions(fd)
	return p
}

func uniqueCount(ss []string) int {
	seen := map[string]bool{}
	for _, s := range ss {
		seen[s] = true
	}
	return len(seen)
}

func tickedLabels(l rawItems) string {
	var on []string
	for i, c := range l.Checked {
		if c && i < len(l.Labels) {
			on = append(on, l.Labels[i])
		}
	}
	if len(on) == 0 {
		return ""
	}
	return pageLabel(strings.Join(on, "; "), 200)
}

// switchTool is a row of filters, tabs or pages as one tool whose
// parameter is the label to click.
func switchTool(sw rawSwitch, gen int, names *namer) candidate {
	noun := "page"
	switch sw.Kind {
	case "tab":
		noun = "tab"
	case "choice":
		// Its own words first ("filters"), a heading above it only then.
		noun = listNoun(rawList{Label: sw.Label, Hint: sw.Hint})
		if noun == "item" {
			noun = listNoun(rawList{Heading: sw.Heading})
		}
	}
	if sw.Kind == "disclosure" {
		return disclosureTool(sw, gen, names)
	}
	name := "show_" + noun
	if sw.Kind == "page" {
		name = "go_to_page"
	}
	s := &Schema{Type: "object", Closed: true, Required: []string{noun}}
	opt := &Schema{Type: "string", Enum: append([]string(nil), sw.Options...), Description: "The label to click, as the page shows it."}
	s.Properties = []Property{{Name: noun, Schema: opt}}
	own := fmt.Sprintf("Clicks one of %d links or buttons on the page that show one %s at a time, and checks that the page changed.", len(sw.Options), noun)
	if sw.Current != "" {
		own += " The current one is " + pageLabel(sw.Current, 60) + "."
	}
	t := Tool{
		Name:        names.unique(name),
		Description: pageSays(own, firstNonEmpty(sw.Label, sw.Heading), descMax),
		InputSchema: marshalSchema(s),
		Annotations: Annotations{ReadOnlyHint: true, OpenWorldHint: true},
		Origin:      OriginSwitch,
	}
	return candidate{tool: t, ref: &toolRef{origin: OriginSwitch, gen: gen, id: sw.ID, schema: s, name: t.Name, param: noun}, group: 2, score: sw.Score}
}

// disclosureTool is the page's closed disclosures (buttons that show a
// section: aria-expanded, a <details>' summary) as one tool whose parameter
// is the label of the one to open.
func disclosureTool(sw rawSwitch, gen int, names *namer) candidate {
	const noun = "section"
	p := itemParam(rawItems{rawList: rawList{Count: max(sw.Count, len(sw.Options))}, Labels: sw.Options})
	p.Description = strings.Replace(p.Description, "The item, by its label", "The section, by the label of its button", 1)
	s := &Schema{Type: "object", Closed: true, Required: []string{noun}, Properties: []Property{{Name: noun, Schema: p}}}
	own := fmt.Sprintf("Expands one of %d collapsed sections of the page (clicks the button that shows it, as a person does) and checks that it opened; what it shows may bring tools of its own.", max(sw.Count, len(sw.Options)))
	t := Tool{
		Name:        names.unique("expand_" + noun),
		Description: pageSays(own, sw.Heading, descMax),
		InputSchema: marshalSchema(s),
		Annotations: Annotations{ReadOnlyHint: true, OpenWorldHint: true},
		Origin:      OriginSwitch,
	}
	return candidate{tool: t, ref: &toolRef{origin: OriginSwitch, gen: gen, id: sw.ID, schema: s, name: t.Name, param: noun, disclosure: true}, group: 2, score: sw.Score}
}

// groupFiller are words of a field's id, name, class or label that say
// nothing of what it holds.
var groupFiller = map[string]bool{
	"new": true, "add": true, "create": true, "input": true, "field": true, "text": true, "box": true, "edit": true,
	"main": true, "the": true, "a": true, "an": true, "your": true, "enter": true, "type": true, "here": true, "form": true,
	"control": true, "lg": true, "sm": true, "value": true, "search": true, "query": true, "q": true, "what": true,
}

// groupName names fields found outside a form: a lone field whose Enter
// adds something is add_<noun> (its id "new-todo", its label "New todo"),
// a search field search_<noun>, a select on its own choose_<its label>; a
// group with a button is named like a form. "" leaves it to formName.
func groupName(f rawForm) string {
	if f.Pick && len(f.Fields) == 1 {
		fd := f.Fields[0]
		if n := snake(firstNonEmpty(fd.Label, fd.Aria, fd.Title), 4, MaxNameLen-7); n != "" {
			return "choose_" + n
		}
		return ""
	}
	if !f.Enter || len(f.Fields) != 1 {
		return ""
	}
	fd := f.Fields[0]
	srcs := []string{fd.Label, fd.Aria, fd.ID, fd.Name, f.Hint, fd.Placeholder}
	verb := "enter"
	for _, src := range srcs {
		for _, w := range strings.Split(snake(src, 0, 200), "_") {
			switch {
			case w == "new" || w == "add" || w == "create":
				verb = "add"
			case (w == "search" || w == "query" || w == "find") && verb != "add":
				verb = "search"
			}
		}
	}
	if f.Search && verb == "enter" {
		verb = "search"
	}
	for _, src := range append(srcs, f.Inner, f.Heading) {
		words := strings.Split(snake(src, 0, 200), "_")
		for i := len(words) - 1; i >= 0; i-- {
			w := words[i]
			if w == "" || groupFiller[w] || genericListWord[w] || len(w) < 3 || isDigits(w) {
				continue
			}
			return verb + "_" + singular(w)
		}
	}
	if verb == "enter" {
		return ""
	}
	return verb
}

// typeAndEnter types text into the focused field (replacing what is
// selected) and presses Enter (pressEnter), as the keyboard does: trusted
// input events, then keydown, keypress and keyup, and the change event a
// person's Enter brings (and a form's implicit submit).
func (e *Engine) typeAndEnter(ctx context.Context, text string, enter bool) error {
	if text != "" {
		if _, err := e.sess.Call(ctx, "Input.insertText", map[string]any{"text": text}); err != nil {
			return fmt.Errorf("type the text: %w", err)
		}
	}
	if !enter {
		return nil
	}
	if err := e.pressEnter(ctx); err != nil {
		return fmt.Errorf("press Enter: %w", err)
	}
	return nil
}

// click clicks at x, y (CSS pixels of the page's viewport) as a mouse
// does: it moves there, presses and releases the left button.
func (e *Engine) click(ctx context.Context, x, y float64) error {
	for _, ev := range []map[string]any{
		{"type": "mouseMoved", "x": x, "y": y},
		{"type": "mousePressed", "x": x, "y": y, "button": "left", "buttons": 1, "clickCount": 1},
		{"type": "mouseReleased", "x": x, "y": y, "button": "left", "buttons": 0, "clickCount": 1},
	} {
		if _, err := e.sess.Call(ctx, "Input.dispatchMouseEvent", ev); err != nil {
			return fmt.Errorf("click: %w", err)
		}
	}
	return nil
}

// seen asks the page whether a call's expected effect is there, and
// answers the sentence for the result, or an error that says it is not.
func (e *Engine) seen(ctx context.Context, ctxID int64, ref *toolRef, args map[string]any, watch int) (string, error) {
	raw, err := e.callIn(ctx, ctxID, "verify", watch)
	if err != nil {
		return "", fmt.Errorf("%s: check the effect in the page: %w", ref.name, err)
	}
	var v struct {
		Seen     bool     `json:"seen"`
		What     string   `json:"what"`
		Before   int      `json:"before"`   // emptied, unfiltered: the list's items
		Matching int      `json:"matching"` // emptied: those of the kind the option names; unfiltered: those not of it
		Messages []string `json:"messages"` // invalid: what the page says of the fields it marked
	}
	_ = json.Unmarshal(raw, &v)
	item := quotePage(fmt.Sprint(args["item"]), 80)
	option := quotePage(fmt.Sprint(args[ref.param]), 60)
	if v.Seen {
		switch v.What {
		case "ticked", "unticked":
			return fmt.Sprintf("The item %s is %s now.", item, v.What), nil
		case "gone":
			return fmt.Sprintf("The item %s is gone.", item), nil
		case "renamed":
			return fmt.Sprintf("The item %s is now %s.", item, quotePage(fmt.Sprint(args["text"]), 80)), nil
		case "shown":
			return "The text appeared on the page.", nil
		case "expanded":
			return fmt.Sprintf("The section %s is expanded now.", option), nil
		case "current":
			return fmt.Sprintf("%s is the current one now.", option), nil
		}
		return "The page changed.", nil
	}
	if v.What == "invalid" {
		return "", &Error{Kind: ErrRejected, Msg: fmt.Sprintf("%s: the page marked the field(s) given as invalid after the click, and says: %s; check the arguments before calling again", ref.name, pageLabel(strings.Join(v.Messages, "; "), 400))}
	}
	why := map[string]string{
		"text-absent":    "the text did not appear anywhere on the page",
		"unchanged":      "nothing on the page changed",
		"item-gone":      fmt.Sprintf("the item %s is no longer there", item),
		"still-ticked":   fmt.Sprintf("the item %s is still ticked", item),
		"still-unticked": fmt.Sprintf("the item %s is still not ticked", item),
		"still-there":    fmt.Sprintf("the item %s is still there", item),
		"not-renamed":    fmt.Sprintf("no item reads %s", quotePage(fmt.Sprint(args["text"]), 80)),
		"both":           fmt.Sprintf("an item reads the new text but %s is still there", item),
		"emptied": fmt.Sprintf("%s was clicked, and the list that showed %d item(s), %d of them of the kind it names, shows none now (the page did not show what it names)",
			option, v.Before, v.Matching),
		"unfiltered": fmt.Sprintf("%s was clicked, and the list still shows %d item(s) that are not of the kind it names, of %d", option, v.Matching, v.Before),
	}[v.What]
	if why == "" {
		why = "its effect could not be checked"
	}
	return "", &Error{Kind: ErrNoEffect, Msg: fmt.Sprintf("%s: the action was done but its effect was not seen: %s. Look at the page before calling again", ref.name, why)}
}
