// Command rod does the clients' task (package task) with go-rod, as its
// users connect to a browser someone else runs: the WebSocket URL given to
// ControlURL, or (-resolve) an http endpoint found with
// launcher.ResolveURL.
package main

import (
	"github.com/browser-coordinator/browser-coordinator/scripts/cdpclients/task"
	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"
)

func main() {
	a := task.Parse()
	u := a.Endpoint
	if a.Resolve {
		var err error
		if u, err = launcher.ResolveURL(u); err != nil {
			task.Fail(err)
		}
	}
	// Not browser.Close: that closes the browser, which is not the client's.
	browser := rod.New().ControlURL(u).Timeout(task.Timeout)
	if err := browser.Connect(); err != nil {
		task.Fail(err)
	}
	page, err := browser.Page(proto.TargetCreateTarget{URL: a.Page})
	if err != nil {
		task.Fail(err)
	}
	defer page.Close()
	title, after, png, err := work(page)
	if err != nil {
		task.Fail(err)
	}
	task.Done(a, title, after, png)
}

func work(page *rod.Page) (title, after string, png []byte, err error) {
	if err = page.WaitLoad(); err != nil {
		return
	}
	info, err := page.Info()
	if err != nil {
		return
	}
	button, err := page.Element("#b")
	if err != nil {
		return
	}
	if err = button.Click(proto.InputMouseButtonLeft, 1); err != nil {
		return
	}
	if err = page.Wait(rod.Eval(`() => document.getElementById('out').textContent.startsWith('Clicked')`)); err != nil {
		return
	}
	out, err := page.Element("#out")
	if err != nil {
		return
	}
	if after, err = out.Text(); err != nil {
		return
	}
	png, err = page.Screenshot(false, nil)
	return info.Title, after, png, err
}
