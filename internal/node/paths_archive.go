package node

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/web"
)

// buildArchive makes the handler of an "archive" path service; the node
// opens it at start (archiveUnit), after downloading it if asked to, so
// that New (and junction check) never touches the network. A missing file
// is a warning here, as Crossbar's check passes such a config: the start
// decides, on the file as it then is.
func buildArchive(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.ArchiveService)
	a, err := web.NewArchive(web.ArchiveOptions{
		ObjectPrefix:  s.ObjectPrefix,
		DefaultObject: s.DefaultObject,
		DefaultFile:   s.DefaultFile,
		Cache:         s.Cache,
		MIMETypes:     s.MIMETypes,
	})
	if err != nil {
		return nil, fieldError(path, err)
	}
	file := env.b.resolve(s.Archive)
	fi, err := os.Stat(file)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return nil, fieldError(path+".archive", fmt.Errorf("node: %s exists but is not a file", file))
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fieldError(path+".archive", err)
	case err != nil && s.Origin == "":
		env.b.warn(path+".archive", fmt.Sprintf("%s does not exist and there is no \"origin\" to download it from: the start fails unless it is there by then", file))
	case err != nil && !s.Download:
		env.b.warn(path+".download", fmt.Sprintf("%s does not exist and \"download\" is false: every request here gets 404", file))
	}
	env.b.node.archives = append(env.b.node.archives, &archiveUnit{
		path: path, file: file, svc: s, archive: a, log: env.b.log.With("url", url),
	})
	return a, nil
}

// archiveUnit is an archive path service to open at start (downloading
// its file first when missing) and close at stop.
type archiveUnit struct {
	path    string
	file    string
	svc     *config.ArchiveService
	archive *web.Archive
	log     *slog.Logger
}

// start opens the file, downloading it first when it is missing and
// "download" is true, as Crossbar does: missing without "origin" fails the
// start, missing with "download" false leaves the service answering 404.
// Errors name the JSON path of what is wrong: the origin, the hashes, the
// archive.
func (u *archiveUnit) start(ctx context.Context) error {
	if _, err := os.Stat(u.file); errors.Is(err, fs.ErrNotExist) {
		switch {
		case u.svc.Origin == "":
			return pathError(u.path+".archive", fmt.Errorf("node: %s does not exist and there is no \"origin\" to download it from", u.file))
		case !u.svc.Download:
			u.log.Warn("archive file does not exist and \"download\" is false: every request here gets 404", "path", u.path, "file", u.file)
			return nil
		}
		if err := u.download(ctx); err != nil {
			return err
		}
	}
	if len(u.svc.Hashes) == 0 {
		u.log.Warn("archive file is unverified (no \"hashes\")", "path", u.path, "file", u.file)
	}
	if err := u.archive.Open(u.file, u.svc.Hashes); err != nil {
		return archiveError(u.path, err)
	}
	u.log.Info("archive opened", "path", u.path, "file", u.file)
	return nil
}

func (u *archiveUnit) download(ctx context.Context) error {
	u.log.Info("downloading archive", "path", u.path, "origin", u.svc.Origin, "file", u.file)
	err := web.FetchArchive(ctx, web.FetchOptions{
		URL: u.svc.Origin, Dest: u.file, Hashes: u.svc.Hashes,
	})
	if err != nil && !errors.Is(err, web.ErrArchiveHash) {
		return pathError(u.path+".origin", err)
	}
	return archiveError(u.path, err)
}

// archiveError puts err at the service's "hashes" when the file matches
// none, else at its "archive"; nil stays nil.
func archiveError(path string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, web.ErrArchiveHash):
		return pathError(path+".hashes", err)
	default:
		return pathError(path+".archive", err)
	}
}

func (u *archiveUnit) stop() error {
	if err := u.archive.Close(); err != nil {
		return pathError(u.path, err)
	}
	return nil
}
