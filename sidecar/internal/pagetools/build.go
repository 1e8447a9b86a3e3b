package pagetools

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/lazyre"
)

// Tool is one page tool as MCP lists it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations Annotations     `json:"annotations"`
	// Origin is where the tool comes from: OriginWebMCP, OriginImperative,
	// OriginForm, OriginList, OriginButton or OriginContent.
	Origin string `json:"-"`
}

// Annotations are the MCP tool annotations of a page tool.
type Annotations struct {
	ReadOnlyHint    bool `json:"readOnlyHint"`
	DestructiveHint bool `json:"destructiveHint"`
	OpenWorldHint   bool `json:"openWorldHint"`
}

// Where a tool comes from.
const (
	OriginWebMCP     = "webmcp"            // a <form toolname> the page declared
	OriginImperative = "webmcp-imperative" // registered by script, listed by the browser
	OriginForm       = "form"              // a form found in the page
	OriginList       = "list"              // a list of repeated items with links or buttons
	OriginButton     = "button"            // a standalone button
	OriginContent    = "content"           // the engine's own page-text tool (Config.ContentTool)
)

// ContentToolName is the name of the page-text tool (Config.ContentTool).
const ContentToolName = "get_page_content"

// Bounds on text taken from a page.
const (
	descMax   = 200 // a tool description's page text
	propMax   = 120 // a property description's page text
	optionMax = 40  // enum values kept; a longer list becomes a plain string
	// An enum keeps the page's values only when each is at most
	// enumValueMax bytes and all of them at most enumBytes; else the
	// property is a string the page checks, its first values listed as
	// page text and the rest counted.
	enumValueMax = 64
	enumBytes    = 1024
	optionsShown = 200 // the listed values' page text, in characters
)

// Caps on what a page's tools take of a model's context, in bytes of the
// tools' JSON (name, description, input schema, annotations).
const (
	// MaxToolBytes: one tool. A form's tool says less (shorter page text,
	// fewer values, then only its required fields) until it fits; one that
	// never fits is left out.
	MaxToolBytes = 8 << 10
	// MaxListBytes: all of a page's tools, the most prominent kept.
	MaxListBytes = 48 << 10
	// listAllowance is counted for every tool on top of its JSON: what a
	// server adds when it lists it (a name prefix, its own fields).
	listAllowance = 64
)

// AllowCrossOrigin is the call argument that lets a form send its
// credential fields to another origin than the page's.
const AllowCrossOrigin = "allowCrossOrigin"

// ToolBytes is what tool counts against MaxToolBytes and MaxListBytes.
func ToolBytes(t Tool) int {
	b, _ := json.Marshal(t)
	return len(b) + listAllowance
}

// The page description the script sends (see script.js).
type rawPage struct {
	Gen              int             `json:"gen"`
	URL              string          `json:"url"`
	Title            string          `json:"title"`
	Forms            []rawForm       `json:"forms"`
	Lists            []rawList       `json:"lists"`
	Buttons          []rawButton     `json:"buttons"`
	Imperative       []rawImperative `json:"imperative"`
	Items            []rawItems      `json:"items"`
	Switches         []rawSwitch     `json:"switches"`
	ImperativeStatus string          `json:"imperativeStatus"`
}

type rawForm struct {
	ID              int    `json:"id"`
	Declared        bool   `json:"declared"`
	ToolName        string `json:"toolName"`
	ToolDescription string `json:"toolDescription"`
	AutoSubmit      bool   `json:"autoSubmit"`
	Label           string `json:"label"`
	Submit          string `json:"submit"`
	Legend          string `json:"legend"`
	Inner           string `json:"inner"`
	Heading         string `json:"heading"`
	FormName        string `json:"formName"`
	Method          string `json:"method"`
	// CrossOrigin is the origin the form submits to when it is not the
	// page's own; Files counts its file fields.
	CrossOrigin string     `json:"crossOrigin"`
	Files       int        `json:"files"`
	Search      bool       `json:"search"`
	Score       int        `json:"score"`
	Fields      []rawField `json:"fields"`
	// Group: fields outside any form, grouped by their container (with
	// the button that follows them, or Enter: a lone field whose Enter
	// does the work); Hint is its first field's id, class and name.
	Group bool   `json:"group"`
	Enter bool   `json:"enter"`
	Pick  bool   `json:"pick"` // a select on its own: choosing is the action
	Hint  string `json:"hint"`
}

type rawField struct {
	Tag         string      `json:"tag"`
	Type        string      `json:"type"`
	Name        string      `json:"name"`
	PName       string      `json:"pname"`
	PTitle      string      `json:"ptitle"`
	PDesc       string      `json:"pdesc"`
	Label       string      `json:"label"`
	Aria        string      `json:"aria"`
	Placeholder string      `json:"ph"`
	ADesc       string      `json:"adesc"`
	Title       string      `json:"title"`
	ID          string      `json:"id"`
	Required    bool        `json:"required"`
	Credential  bool        `json:"cred"` // a password, one-time code or card number or code
	Min         string      `json:"min"`
	Max         string      `json:"max"`
	Step        string      `json:"step"`
	Pattern     string      `json:"pattern"`
	MinLength   *int        `json:"minLength"`
	MaxLength   *int        `json:"maxLength"`
	Value       string      `json:"value"`
	Checked     bool        `json:"checked"`
	Empty       bool        `json:"empty"`
	Options     []rawOption `json:"options"`
	OptionCount int         `json:"optionCount"`
}

type rawOption struct {
	V string `json:"v"`
	L string `json:"l"`
}

type rawList struct {
	ID       int    `json:"id"`
	Tag      string `json:"tag"`
	ItemTag  string `json:"itemTag"`
	Count    int    `json:"count"`
	Score    int    `json:"score"`
	Label    string `json:"label"`
	Heading  string `json:"heading"`
	Hint     string `json:"hint"`
	ItemHint string `json:"itemHint"`
	Action   string `json:"action"`
}

type rawButton struct {
	ID    int    `json:"id"`
	Label string `json:"label"`
	Score int    `json:"score"`
}

type rawImperative struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema string          `json:"inputSchema"`
	Annotations json.RawMessage `json:"annotations"`
}

// toolRef is what a call needs to reach a tool's elements in the page.
type toolRef struct {
	origin  string
	gen     int // the script's registry generation
	id      int // the form, list or button in that registry
	name    string
	schema  *Schema        // the engine's own schema, nil for imperative tools
	foreign map[string]any // an imperative tool's schema as the page gave it
	fields  map[string]int // property → field index in the form
	submit  bool           // a form to submit (false: WebMCP without toolautosubmit)
	post    bool           // a form that posts (its values go in the body, not the URL)
	pageKey string         // an imperative tool's name in the page
	action  int            // an item tool's action in its list
	param   string         // a switch tool's parameter
}

// secrets lists the arguments of write-only (password) properties.
func (r *toolRef) secrets(args map[string]any) []string {
	if r.schema == nil {
		return nil
	}
	var out []string
	for _, p := range r.schema.Properties {
		if s, ok := args[p.Name].(string); ok && p.Schema.WriteOnly && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// candidate is a tool before the cap.
type candidate struct {
	tool  Tool
	ref   *toolRef
	group int // 0 declared, 1 imperative, 2 found (ranked by score)
	score int
	order int
}

// build turns a page description into the page's tools: WebMCP forms, then
// WebMCP imperative tools, then forms, lists and buttons found in the page,
// at most max in all (the found ones ranked by prominence). Names are
// reserved in page order before the cap, so a tool's name depends on the
// page alone.
func build(p rawPage, cfg Config) ([]Tool, map[string]*toolRef) {
	names := newNamer(MaxNameLen)
	if cfg.ContentTool {
		names.unique(ContentToolName)
	}
	var cands []candidate
	add := func(t Tool, r *toolRef, group, score int) {
		r.name = t.Name
		cands = append(cands, candidate{tool: t, ref: r, group: group, score: score, order: len(cands)})
	}
	declared := map[string]bool{}
	for _, f := range p.Forms {
		if f.Declared {
			name := names.unique(declaredName(f.ToolName))
			declared[f.ToolName] = true
			if t, r, ok := fittedFormTool(f, p.Gen, name); ok {
				add(t, r, 0, 0)
			}
		}
	}
	for _, it := range p.Imperative {
		if declared[it.Name] || it.Name == "" { // Chrome lists declared forms here too
			continue
		}
		t, r := imperativeTool(it)
		t.Name = names.unique(declaredName(it.Name))
		add(t, r, 1, 0)
	}
	for _, f := range p.Forms {
		if !f.Declared {
			name := names.unique(formName(f))
			if t, r, ok := fittedFormTool(f, p.Gen, name); ok {
				add(t, r, 2, f.Score+min(len(f.Fields), 5))
			}
		}
	}
	for _, l := range p.Lists {
		t, r := listTool(l, p.Gen)
		t.Name = names.unique("open_" + listNoun(l))
		add(t, r, 2, l.Score)
	}
	for _, l := range p.Items {
		for _, c := range itemTools(l, p.Gen, names) {
			add(c.tool, c.ref, c.group, c.score)
		}
	}
	for _, sw := range p.Switches {
		c := switchTool(sw, p.Gen, names)
		add(c.tool, c.ref, c.group, c.score)
	}
	for _, b := range p.Buttons {
		base := snake(b.Label, 5, MaxNameLen)
		if base == "" {
			continue
		}
		t, r := buttonTool(b, p.Gen)
		t.Name = names.unique(base)
		add(t, r, 2, b.Score-4) // after forms and lists of the same size
	}
	return capped(cands, cfg)
}

// capped keeps the most prominent candidates (declared first, then found
// ones by score) within cfg.MaxTools and MaxListBytes, in page order.
func capped(cands []candidate, cfg Config) ([]Tool, map[string]*toolRef) {
	limit, budget := cfg.MaxTools, MaxListBytes
	var content Tool
	var contentRef *toolRef
	if cfg.ContentTool {
		content, contentRef = contentTool(contentLimit(cfg))
		limit--
		budget -= ToolBytes(content)
	}
	ranked := append([]candidate(nil), cands...)
	sort.SliceStable(ranked, func(i, j int) bool {
		if ranked[i].group != ranked[j].group {
			return ranked[i].group < ranked[j].group
		}
		if ranked[i].group == 2 && ranked[i].score != ranked[j].score {
			return ranked[i].score > ranked[j].score
		}
		return ranked[i].order < ranked[j].order
	})
	keep := map[int]bool{}
	for _, c := range ranked {
		if len(keep) == limit {
			break
		}
		n := ToolBytes(c.tool)
		if n > MaxToolBytes || n > budget {
			continue // a smaller one further down may still fit
		}
		budget -= n
		keep[c.order] = true
	}
	tools := []Tool{}
	refs := map[string]*toolRef{}
	for _, c := range cands { // page order
		if keep[c.order] {
			tools = append(tools, c.tool)
			refs[c.tool.Name] = c.ref
		}
	}
	if cfg.ContentTool {
		tools = append(tools, content)
		refs[content.Name] = contentRef
	}
	return tools, refs
}

func marshalSchema(s *Schema) json.RawMessage {
	b, _ := s.MarshalJSON()
	return b
}

// pageSays appends page text to a description the engine writes, quoted
// and marked as the page's.
func pageSays(own, page string, max int) string {
	q := pageLabel(page, max)
	if q == "" || max <= 0 {
		return own
	}
	if own == "" {
		return q
	}
	return own + " " + q
}

func joinUnique(sep string, parts ...string) string {
	var out []string
	seen := map[string]bool{}
	for _, p := range parts {
		k := snake(p, 0, 1000)
		if p == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, p)
	}
	return strings.Join(out, sep)
}

// harmless are labels of actions that change nothing a person would mind
// (searching, showing, signing in), so they are not destructive.
var harmless = lazyre.New(`^(search|find|filter|sort|show|view|preview|open|expand|collapse|load_more|more|next|previous|prev|refresh|sign_in|log_in|login|signin|look_up|lookup|check|compare|browse|read|see)(_|$)`)

// detail is how much of a form its tool spells out. Level 0 is all of it;
// each level says less (shorter page text, fewer listed values, then only
// the required fields) for a tool that does not fit MaxToolBytes.
type detail int

const maxDetail detail = 3

func (d detail) descText() int    { return [...]int{descMax, descMax, 80, 80}[d] }
func (d detail) propText() int    { return [...]int{propMax, 40, 0, 0}[d] }
func (d detail) enumBytes() int   { return [...]int{enumBytes, 512, 0, 0}[d] }
func (d detail) listValues() bool { return d < 2 }
func (d detail) patterns() bool   { return d < 2 }
func (d detail) optional() bool   { return d < 3 }

// fittedFormTool is a form's tool named name, with as much detail as fits
// MaxToolBytes; ok is false when even the least does not fit.
func fittedFormTool(f rawForm, gen int, name string) (Tool, *toolRef, bool) {
	for d := detail(0); d <= maxDetail; d++ {
		t, r := formTool(f, gen, d)
		t.Name = name
		if ToolBytes(t) <= MaxToolBytes {
			return t, r, true
		}
	}
	return Tool{}, nil, false
}

func formTool(f rawForm, gen int, d detail) (Tool, *toolRef) {
	s, ref, left := formSchema(f, gen, d)
	t := Tool{Annotations: formAnnotations(f), Origin: OriginForm}
	var own []string
	switch {
	case f.Declared && f.AutoSubmit:
		own = append(own, "Declared by the page (WebMCP).")
	case f.Declared:
		own = append(own, "Declared by the page (WebMCP); fills the form in, and a person submits it.")
	case f.Enter && f.Search:
		own = append(own, "Types the text into a search field of the page and presses Enter, as a person does, and checks that the page changed.")
	case f.Enter:
		own = append(own, "Types the text into a field of the page and presses Enter, as a person does, and checks that the text appeared on the page.")
	case f.Pick:
		own = append(own, "Chooses an option of a list on the page (it is in no form), as a person does, and checks that the page changed.")
	case f.Group:
		own = append(own, "Fills in these fields of the page (they are in no form) and clicks the button that follows them.")
	case t.Annotations.ReadOnlyHint:
		own = append(own, "Fills in and submits this form of the page (it only navigates, e.g. to results).")
	default:
		own = append(own, "Fills in and submits this form of the page.")
	}
	if to := cleanText(f.CrossOrigin, 200); to != "" {
		away := fmt.Sprintf("It submits to %s, another origin than the page's.", to)
		if formHasCredential(f) {
			away = fmt.Sprintf("It submits to %s, another origin than the page's: its password and other credential fields are sent there only when the call says %q: true.", to, AllowCrossOrigin)
		}
		own = append(own, away)
	}
	if left > 0 {
		own = append(own, fmt.Sprintf("%d optional field(s) are left out to keep this tool small; they keep what the page put in them.", left))
	}
	page := joinUnique(" · ", f.Label, firstNonEmpty(f.Legend, f.Inner, f.Heading), f.Submit)
	if f.Declared {
		ref.origin, ref.submit, t.Origin = OriginWebMCP, f.AutoSubmit, OriginWebMCP
		page = f.ToolDescription
	}
	t.Description = pageSays(strings.Join(own, " "), page, d.descText())
	t.InputSchema = marshalSchema(s)
	return t, ref
}

// formSchema is a form's input schema at detail d, and how many optional
// fields it leaves out.
func formSchema(f rawForm, gen int, d detail) (*Schema, *toolRef, int) {
	s := &Schema{Type: "object", Closed: true}
	ref := &toolRef{origin: OriginForm, gen: gen, id: f.ID, schema: s, fields: map[string]int{}, submit: true, post: strings.EqualFold(f.Method, "post")}
	props := newNamer(64)
	props.unique(AllowCrossOrigin) // the call's own argument, never a field's
	left := 0
	for i, fd := range f.Fields {
		ps, ok := fieldSchema(fd, d)
		if !ok {
			continue
		}
		required := fd.Required && (f.Declared || fieldEmpty(fd)) || (f.Enter || f.Pick) && len(f.Fields) == 1
		if !required && !d.optional() {
			left++
			continue
		}
		var name string
		if f.Declared {
			// The page's parameter name, exactly, when clients accept it
			// as a property name; else its snake_case form.
			name = firstNonEmpty(fd.PName, fd.Name)
			if !validPropertyName.MatchString(name) {
				name = snake(name, 6, 64)
			}
			if name == "" {
				name = propertyName(fd)
			}
		} else {
			name = propertyName(fd)
		}
		if f.Enter && len(f.Fields) == 1 {
			name = "text" // a lone field: what is typed into it, its label said
			ps.Description = pageSays("", fieldTextBeside(fd, name), d.propText())
		}
		name = props.unique(name)
		s.Properties = append(s.Properties, Property{Name: name, Schema: ps})
		ref.fields[name] = i
		if required {
			s.Required = append(s.Required, name)
		}
	}
	if f.CrossOrigin != "" && formHasCredential(f) {
		s.Properties = append(s.Properties, Property{Name: AllowCrossOrigin, Schema: &Schema{Type: "boolean",
			Description: "Send the password and other credential fields to the other origin this form submits to (see the tool's description). Default false: the call is refused."}})
	}
	return s, ref, left
}

// fieldEmpty: the page gives the field no value of its own.
func fieldEmpty(fd rawField) bool {
	switch fd.Type {
	case "checkbox":
		return !fd.Checked
	case "radio", "select", "select-multiple", "checkbox-group":
		return fd.Value == ""
	}
	return fd.Empty
}

func formHasCredential(f rawForm) bool {
	return slices.ContainsFunc(f.Fields, func(fd rawField) bool { return fd.Credential || fd.Type == "password" })
}

// changesState are the words of a form's name or buttons that say
// submitting it changes something (an account, an order, a message).
var changesState = lazyre.New(`(^|_)(add|create|delete|remove|erase|buy|purchase|order|pay|checkout|send|sign|signup|signin|register|subscribe|unsubscribe|post|publish|save|update|edit|change|book|reserve|transfer|cancel|confirm|apply|upload|vote|like|follow|invite|share|comment|reply|login|logout|log_in|log_out|donate|rate|review|reset|join|leave|accept|decline|approve|reject|archive|block|report|claim|redeem|rsvp)(_|$)`)

// formAnnotations come from what submitting the form does, never from what
// the page says of it: read-only only for a GET form with no password or
// other credential, no file and no word of changing anything.
func formAnnotations(f rawForm) Annotations {
	words := snake(joinUnique(" ", f.ToolName, formName(f), f.Label, f.Submit), 0, 400)
	method := strings.ToLower(f.Method)
	readOnly := method != "post" && method != "dialog" && f.Files == 0 && !formHasCredential(f) && !changesState.MatchString(words)
	// A lone field whose Enter adds something only adds (MCP: additive).
	additive := f.Enter && strings.HasPrefix(groupName(f), "add_")
	return Annotations{
		ReadOnlyHint:    readOnly,
		DestructiveHint: !readOnly && !additive && !harmless.MatchString(words) && !harmless.MatchString(snake(f.Submit, 0, 200)),
		OpenWorldHint:   true,
	}
}

// fieldSchema maps a form field to a property schema: its input type to a
// JSON Schema type and format, its constraints carried over.
func fieldSchema(fd rawField, d detail) (*Schema, bool) {
	s := &Schema{Type: "string"}
	var own []string
	switch fd.Type {
	case "checkbox":
		s.Type = "boolean"
		if fd.Required {
			own = append(own, "Must be true to submit.")
		}
	case "radio", "select", "select-multiple", "checkbox-group":
		if fd.OptionCount == 0 {
			return nil, false
		}
		own = choiceSchema(s, fd, own, d)
	case "number", "range":
		s.Type = "integer"
		if fd.Step == "any" || (fd.Step != "" && !isWhole(fd.Step)) || (fd.Min != "" && !isWhole(fd.Min)) {
			s.Type = "number"
		}
		s.Minimum, s.Maximum = parseNum(fd.Min), parseNum(fd.Max)
		if v := parseNum(fd.Value); v != nil {
			s.Default = *v
		}
	case "date":
		s.Format = "date"
		s.minDate, s.maxDate = dateOnly(fd.Min), dateOnly(fd.Max)
		if s.minDate != "" {
			own = append(own, "Earliest "+s.minDate+".")
		}
		if s.maxDate != "" {
			own = append(own, "Latest "+s.maxDate+".")
		}
		if d := dateOnly(fd.Value); d != "" {
			s.Default = d
		}
	case "datetime-local":
		s.Pattern = `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$`
		own = append(own, "Local date and time, YYYY-MM-DDThh:mm.")
	case "time":
		s.Pattern = `^\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$`
		own = append(own, "Time, hh:mm.")
	case "month":
		s.Pattern = `^\d{4}-\d{2}$`
	case "week":
		s.Pattern = `^\d{4}-W\d{2}$`
	case "color":
		s.Pattern = `^#[0-9a-fA-F]{6}$`
	case "email":
		s.Format = "email"
	case "url":
		s.Format = "uri"
	}
	if fd.Type == "password" || fd.Credential {
		s.WriteOnly = true
		own = append(own, "Write-only: never shown back.")
	}
	if s.Type == "string" && s.Pattern == "" && fd.Pattern != "" && len(fd.Pattern) <= 200 && d.patterns() {
		s.Pattern = "^(?:" + fd.Pattern + ")$"
	}
	if s.Type == "string" && s.Enum == nil {
		s.MinLength, s.MaxLength = fd.MinLength, fd.MaxLength
		if s.MinLength != nil && *s.MinLength <= 0 {
			s.MinLength = nil
		}
		if s.MaxLength != nil && *s.MaxLength > 1<<20 {
			s.MaxLength = nil
		}
	}
	s.Description = pageSays(strings.Join(own, " "), fieldText(fd), d.propText())
	return s, true
}

// choiceSchema makes s a choice field's: one of its options (by value,
// or by label: the page takes either), or an array of them.
func choiceSchema(s *Schema, fd rawField, own []string, d detail) []string {
	if fd.Type == "select-multiple" || fd.Type == "checkbox-group" {
		item := &Schema{Type: "string"}
		item.Enum, own = enumOf(fd, own, d)
		s.Type, s.Items = "array", item
		if fd.Required {
			one := 1
			s.MinItems = &one
		}
		return own
	}
	s.Enum, own = enumOf(fd, own, d)
	if s.Enum != nil {
		s.labels = map[string]bool{}
		for _, o := range fd.Options {
			if o.L != "" {
				s.labels[strings.ToLower(o.L)] = true
			}
		}
	}
	if fd.Value != "" && slices.Contains(s.Enum, fd.Value) {
		s.Default = fd.Value
	}
	return own
}

// fieldText is what the page says of a field beyond its name.
func fieldText(fd rawField) string {
	return fieldTextBeside(fd, propertyName(fd))
}

// fieldTextBeside is what the page says of a field whose parameter is
// called name, beyond what that name says.
func fieldTextBeside(fd rawField, name string) string {
	if fd.PDesc != "" || fd.PTitle != "" { // WebMCP's own words for the parameter
		return joinUnique(": ", fd.PTitle, fd.PDesc)
	}
	var parts []string
	for _, p := range []string{fd.Label, fd.Aria, fd.ADesc, fd.Title} {
		if p != "" && snake(p, 0, 200) != name {
			parts = append(parts, p)
		}
	}
	if fd.Placeholder != "" && snake(fd.Placeholder, 0, 200) != name && fd.Type != "password" && !fd.Credential {
		parts = append(parts, "e.g. "+fd.Placeholder)
	}
	return joinUnique(" — ", parts...)
}

// enumOf lists a choice field's values as an enum when they are few and
// short (and, when their labels say more than the values, the description
// maps them, as page text). Otherwise the property is a string the page
// checks: its first values are listed as page text, the rest counted.
func enumOf(fd rawField, own []string, d detail) ([]string, []string) {
	vals := make([]string, 0, len(fd.Options))
	var labels []string
	size, longest := 0, 0
	for _, o := range fd.Options {
		if slices.Contains(vals, o.V) {
			continue
		}
		vals = append(vals, o.V)
		size, longest = size+len(o.V)+3, max(longest, len(o.V))
		if o.L != "" && !strings.EqualFold(strings.TrimSpace(o.L), strings.TrimSpace(o.V)) {
			labels = append(labels, o.V+" = "+o.L)
		}
	}
	if fd.OptionCount <= optionMax && fd.OptionCount <= len(fd.Options) && longest <= enumValueMax && size <= d.enumBytes() {
		if len(labels) > 0 && d.listValues() {
			own = append(own, "Options (value = label): "+pageLabel(strings.Join(labels, "; "), 240)+".")
		}
		return vals, own
	}
	own = append(own, fmt.Sprintf("One of the page's %d options, by its value or its label; the page checks it.", fd.OptionCount))
	if d.listValues() && len(fd.Options) > 0 {
		own = append(own, someOptions(fd))
	}
	return nil, own
}

// someOptions lists a field's first options ("value" or "value = label")
// as page text, and counts the others.
func someOptions(fd rawField) string {
	var parts []string
	n := 0
	for _, o := range fd.Options {
		e := cleanText(o.V, 60)
		if l := cleanText(o.L, 60); l != "" && !strings.EqualFold(l, e) {
			e += " = " + l
		}
		if len(parts) > 0 && n+len(e) > optionsShown {
			break
		}
		parts = append(parts, e)
		n += len(e) + 2
	}
	out := "Values: " + pageLabel(strings.Join(parts, "; "), optionsShown+130)
	if more := fd.OptionCount - len(parts); more > 0 {
		out += fmt.Sprintf(" and %d more", more)
	}
	return out + "."
}

func isWhole(s string) bool {
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && f == math.Trunc(f)
}

func parseNum(s string) *float64 {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil
	}
	return &f
}

// validPropertyName is what clients accept as a property name (some reject
// spaces and punctuation).
var validPropertyName = lazyre.New(`^[A-Za-z0-9_.-]{1,64}$`)

var dateRE = lazyre.New(`^\d{4}-\d{2}-\d{2}$`)

func dateOnly(s string) string {
	if dateRE.MatchString(s) {
		return s
	}
	return ""
}

func listTool(l rawList, gen int) (Tool, *toolRef) {
	zero, last := 0.0, float64(l.Count-1)
	idx := &Schema{Type: "integer", Description: "Position in the list, from 0 at the top.", Minimum: &zero, Maximum: &last}
	s := &Schema{Type: "object", Properties: []Property{{Name: "index", Schema: idx}}, Required: []string{"index"}, Closed: true}
	own := fmt.Sprintf("Opens one of the %d items of a list on the page (clicks its link or button).", l.Count)
	// Opening an item reads, unless its button says it changes something.
	action := snake(l.Action, 0, 200)
	readOnly := !changesState.MatchString(action)
	t := Tool{
		Description: pageSays(own, joinUnique(" · ", firstNonEmpty(l.Label, l.Heading), l.Action), descMax),
		InputSchema: marshalSchema(s),
		Annotations: Annotations{ReadOnlyHint: readOnly, DestructiveHint: !readOnly && !harmless.MatchString(action), OpenWorldHint: true},
		Origin:      OriginList,
	}
	return t, &toolRef{origin: OriginList, gen: gen, id: l.ID, schema: s}
}

func buttonTool(b rawButton, gen int) (Tool, *toolRef) {
	s := &Schema{Type: "object", Closed: true}
	t := Tool{
		Description: pageSays("Clicks a button on the page.", b.Label, descMax),
		InputSchema: marshalSchema(s),
		Annotations: Annotations{DestructiveHint: !harmless.MatchString(snake(b.Label, 0, 200)), OpenWorldHint: true},
		Origin:      OriginButton,
	}
	return t, &toolRef{origin: OriginButton, gen: gen, id: b.ID, schema: s}
}

func imperativeTool(it rawImperative) (Tool, *toolRef) {
	schema, m := portable(it.InputSchema)
	// What the page's script does when called cannot be seen: its own
	// annotations are its word, not evidence, so none are taken.
	t := Tool{
		Description: pageSays("Registered by the page (WebMCP); runs the page's own script.", it.Description, descMax),
		InputSchema: schema,
		Annotations: Annotations{DestructiveHint: true, OpenWorldHint: true},
		Origin:      OriginImperative,
	}
	return t, &toolRef{origin: OriginImperative, foreign: m, pageKey: it.Name, submit: true}
}

// contentLimit bounds get_page_content's text: a page's worth, four times
// what a call's answer shows.
func contentLimit(cfg Config) int { return 4 * cfg.TextLimit }

func contentTool(limit int) (Tool, *toolRef) {
	s := &Schema{Type: "object", Closed: true}
	return Tool{
		Name:        ContentToolName,
		Description: fmt.Sprintf("Returns the text of the page's main content (at most %d characters), with its URL and title.", limit),
		InputSchema: marshalSchema(s),
		Annotations: Annotations{ReadOnlyHint: true, OpenWorldHint: true},
		Origin:      OriginContent,
	}, &toolRef{origin: OriginContent, name: ContentToolName, schema: s}
}

// signature is a tool list in a form that compares equal exactly when the
// set of tools (names, descriptions, schemas, annotations) is the same,
// whatever its order.
func signature(tools []Tool) string {
	sorted := append([]Tool(nil), tools...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	b, _ := json.Marshal(sorted)
	return string(b)
}

// Names are the tools' names, in order.
func Names(tools []Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}
