package vscodetier

import (
	"context"
	"encoding/json"
	"math"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/tidwall/gjson"
)

// screenshot serves Page.captureScreenshot for an iframe view, which
// Chromium refuses ("top-level targets only"): it captures VS Code's window
// clipped to the iframe's box. The iframe's box comes from the window
// (DOM.getFrameOwner + DOM.getBoxModel: top-level CSS pixels), on a
// session of the View's own that no client sees; a clip the client gives
// is in the iframe's page coordinates, so the iframe's scroll offset is
// taken off and its box origin added. What is outside the iframe's
// visible box cannot be captured and is cut off.
func (v *View) screenshot(ctx context.Context, view string, m *cdp.Message) *cdp.Message {
	window, err := v.parentPage(ctx, view)
	if err != nil {
		return cdp.Fail(m, "browser-coordinator: cannot capture VS Code's browser view: %v", err)
	}
	parent, err := v.attach(ctx, window)
	if err != nil {
		return cdp.Fail(m, "browser-coordinator: cannot capture VS Code's browser view: %v", err)
	}
	defer v.detach(parent)
	owner, err := v.conn.Call(ctx, parent, "DOM.getFrameOwner", map[string]string{"frameId": view})
	if err != nil {
		return cdp.Fail(m, "browser-coordinator: cannot find VS Code's browser view in its window: %v", err)
	}
	box, err := v.conn.Call(ctx, parent, "DOM.getBoxModel", map[string]int64{"backendNodeId": gjson.GetBytes(owner, "backendNodeId").Int()})
	if err != nil {
		return cdp.Fail(m, "browser-coordinator: cannot measure VS Code's browser view: %v", err)
	}
	quad := gjson.GetBytes(box, "model.content").Array()
	if len(quad) != 8 {
		return cdp.Fail(m, "browser-coordinator: VS Code's browser view has no box (is it hidden?)")
	}
	frame := rect{x: quad[0].Float(), y: quad[1].Float(), w: quad[4].Float() - quad[0].Float(), h: quad[5].Float() - quad[1].Float()}

	params := map[string]any{}
	_ = json.Unmarshal(m.Params, &params)
	clip := frame
	scale := 1.0
	if c := gjson.GetBytes(m.Params, "clip"); c.Exists() {
		metrics, err := v.host.Call(ctx, view, "Page.getLayoutMetrics", nil)
		if err != nil {
			return cdp.Fail(m, "%v", err)
		}
		scrollX := gjson.GetBytes(metrics, "cssLayoutViewport.pageX").Float()
		scrollY := gjson.GetBytes(metrics, "cssLayoutViewport.pageY").Float()
		clip = rect{x: frame.x + c.Get("x").Float() - scrollX, y: frame.y + c.Get("y").Float() - scrollY, w: c.Get("width").Float(), h: c.Get("height").Float()}.intersect(frame)
		if s := c.Get("scale").Float(); s > 0 {
			scale = s
		}
	}
	if clip.w <= 0 || clip.h <= 0 {
		return cdp.Fail(m, "browser-coordinator: the requested area is outside the visible part of VS Code's browser view")
	}
	params["clip"] = map[string]float64{"x": clip.x, "y": clip.y, "width": clip.w, "height": clip.h, "scale": scale}
	params["captureBeyondViewport"] = false
	res, err := v.conn.Call(ctx, parent, "Page.captureScreenshot", params)
	return answer(m, res, err)
}

type rect struct{ x, y, w, h float64 }

func (r rect) intersect(o rect) rect {
	x0, y0 := math.Max(r.x, o.x), math.Max(r.y, o.y)
	x1, y1 := math.Min(r.x+r.w, o.x+o.w), math.Min(r.y+r.h, o.y+o.h)
	return rect{x: x0, y: y0, w: x1 - x0, h: y1 - y0}
}
