;;; driver.el --- drives Emacs with eglot as a user would  -*- lexical-binding: t -*-

;; Loaded after the README's snippet in `emacs --batch'. It does what a
;; user does: start eglot, run code actions, answer approvals, save. The
;; prompts (the action list, approvals, the save question) are eglot's and
;; Emacs's own, read from stdin in batch mode: the Go test reads them on
;; the terminal and types the answers. In batch mode nothing runs while
;; Emacs waits unless the waiter runs it: `drv-wait' accepts process output
;; and runs the idle timers (eglot sends didChange from one). Lines
;; starting DRIVER report to the test.

(defvar drv-ws (getenv "AGENT_LS_TEST_WS"))
(defvar drv-flow (getenv "AGENT_LS_TEST_FLOW")) ; "full" or "buffer"

(defun drv-say (fmt &rest args)
  (message "DRIVER: %s" (apply #'format fmt args)))

(defun drv-fail (fmt &rest args)
  (let ((server (ignore-errors (eglot-current-server))))
    (when server
      (with-current-buffer (jsonrpc-events-buffer server)
        (message "eglot events (the end):\n%s"
                 (buffer-substring-no-properties (max (point-min) (- (point-max) 12000)) (point-max))))))
  (message "DRIVER FAIL: %s" (apply #'format fmt args))
  (kill-emacs 1))

(defun drv-run-idle-timers ()
  (dolist (timer (copy-sequence timer-idle-list))
    (timer-event-handler timer)))

(defun drv-wait (what pred)
  "Run Emacs (process output, timers) until PRED holds."
  (let ((deadline (+ (float-time) 120)))
    (while (not (funcall pred))
      (when (> (float-time) deadline)
        (drv-fail "timed out waiting for %s" what))
      (accept-process-output nil 0.02)
      (drv-run-idle-timers))))

(defun drv-messages-with (text)
  "The part of *Messages* from the last line containing TEXT on, or nil."
  (with-current-buffer (messages-buffer)
    (save-excursion
      (goto-char (point-max))
      (when (search-backward text nil t)
        (buffer-substring-no-properties (line-beginning-position) (point-max))))))

(defun drv-code-action ()
  "M-x eglot-code-actions: the user picks from the list on the terminal."
  (let ((last-nonmenu-event ?\r))
    (call-interactively #'eglot-code-actions))
  (drv-say "command answered"))

(defun drv-offered-p (title)
  (let ((bounds (eglot--region-bounds)))
    (seq-find (lambda (a) (equal (plist-get a :title) title))
              (eglot-code-actions (car bounds) (cadr bounds)))))

(defun drv-file-text (path)
  (with-temp-buffer
    (insert-file-contents path)
    (buffer-string)))

(setq make-backup-files nil create-lockfiles nil)
(transient-mark-mode 1)
(let* ((path (expand-file-name "greet.js" drv-ws))
       (before (drv-file-text path))
       patched)
  (find-file path)
  (call-interactively #'eglot)
  (drv-wait "eglot to manage the buffer"
            (lambda () (and (bound-and-true-p eglot--managed-mode) (eglot-current-server))))
  (drv-say "attached")

  ;; "Agent: Fix this" on the function, selected as a region.
  (goto-char (point-min))
  (forward-line 1)
  (push-mark (point) t t)
  (forward-line 2)
  (drv-code-action)
  (drv-wait "the first answer" (lambda () (drv-messages-with "First answer")))
  (setq patched (buffer-string))
  (unless (string-search "Grüß dich, \" + name + \" 👋" patched)
    (drv-fail "the buffer was not patched: %s" patched))
  (drv-say "first answer shown")

  (if (equal drv-flow "buffer")
      (unless (equal (drv-file-text path) before)
        (drv-fail "the file was written behind the buffer"))
    ;; "Agent: Explain this" at point.
    (deactivate-mark)
    (goto-char (point-min))
    (forward-line 1)
    (forward-char 4)
    (drv-code-action)
    (drv-wait "the second answer" (lambda () (drv-messages-with "Second answer")))
    (drv-say "second answer shown")
    ;; A turn that hangs mid-stream, stopped from the code actions.
    (drv-code-action)
    (drv-wait "\"Agent: Stop\" to be offered" (lambda () (drv-offered-p "Agent: Stop")))
    (drv-code-action)
    (drv-wait "the interrupted turn" (lambda () (drv-messages-with "Agent: Interrupted")))
    (drv-say "stopped")
    ;; The whole conversation, where "Agent: Show conversation" says it is.
    (drv-code-action)
    (drv-wait "the conversation" (lambda () (drv-messages-with "Agent: the conversation is in ")))
    (let* ((shown (drv-messages-with "Agent: the conversation is in "))
           (file (and (string-match "is in \\(.*\\)$" shown) (match-string 1 shown)))
           (conversation (drv-file-text file)))
      (dolist (want '("First answer" "Second answer" "_Turn interrupted._"))
        (unless (string-search want conversation)
          (drv-fail "the conversation lacks %s:\n%s" want conversation))))
    (drv-say "conversation shown"))

  ;; Saving the edited buffer.
  (save-buffer)
  (when (buffer-modified-p)
    (drv-fail "the buffer is still modified after saving"))
  (unless (equal (drv-file-text path) patched)
    (drv-fail "the saved file differs from the buffer"))
  (drv-say "saved")
  (message "DRIVER DONE")
  (kill-emacs 0))
