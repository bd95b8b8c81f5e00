/*
 * layer_main.c - the main of the layer_link_<layer> executables (meson.build):
 * each links one layer's library whole with only the libraries of the layers
 * it may use, so a call from that layer into any other fails the build with an
 * undefined reference (docs/architecture.md, "Rules between layers").
 */
int main(void)
{
	return 0;
}
